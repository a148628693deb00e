/**
 * Silero VAD v5 in this process through ONNX Runtime: the same computation as the Python worker's
 * `vad` command (src/inference/speech-runtime/python/vad.py run_vad), so either engine yields the same speech
 * probabilities for the same verified silero_vad.onnx.
 */
import type { Ort } from "./onnx/runtime.ts";
import type { TaskModel } from "./task-model.ts";

import type { PcmSource } from "../media/wav.ts";

export const SILERO_SAMPLE_RATE = 16000;
/** Silero v5 at 16 kHz reads 512-sample windows, each preceded by the last 64 samples of the one before. */
const WINDOW = 512;
const CONTEXT = 64;
const STATE_SIZE = 2 * 1 * 128;

export interface SpeechProbabilities {
  frame_seconds: number;
  probs: number[];
}

export class SileroVad implements TaskModel {
  private constructor(private readonly ort: Ort, private readonly session: Awaited<ReturnType<Ort["InferenceSession"]["create"]>>) {}

  /** One thread, like the worker: VAD is a small serial model and the recogniser wants the cores. */
  static async open(ort: Ort, modelPath: string): Promise<SileroVad> {
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1, executionProviders: ["cpu"] });
    return new SileroVad(ort, session);
  }

  /**
   * Speech probability per 512-sample window of 16 kHz mono audio, rounded to 4 decimals as the
   * worker prints them. Yields to the event loop between windows (the server keeps answering during
   * a live job), and stops with the signal's reason when aborted.
   */
  async probabilities(audio: PcmSource, signal?: AbortSignal): Promise<SpeechProbabilities> {
    if (audio.sampleRate !== SILERO_SAMPLE_RATE) throw new Error(`Silero VAD reads ${SILERO_SAMPLE_RATE} Hz audio, got ${audio.sampleRate} Hz`);
    const { Tensor } = this.ort;
    const sr = new Tensor("int64", BigInt64Array.from([BigInt(SILERO_SAMPLE_RATE)]), []);
    let state = new Tensor("float32", new Float32Array(STATE_SIZE), [2, 1, 128]);
    const n = Math.floor(audio.length / WINDOW);
    // Read a few seconds at a time: an episode's samples never sit in memory at once.
    const BLOCK = 256;
    let block: Float32Array<ArrayBufferLike> = new Float32Array(0);
    const probs = new Array<number>(n);
    let context = new Float32Array(CONTEXT);
    for (let i = 0; i < n; i++) {
      signal?.throwIfAborted();
      const x = new Float32Array(CONTEXT + WINDOW);
      x.set(context, 0);
      if (i % BLOCK === 0) block = audio.read(i * WINDOW, BLOCK * WINDOW);
      x.set(block.subarray((i % BLOCK) * WINDOW, (i % BLOCK + 1) * WINDOW), CONTEXT);
      const out = await this.session.run({ input: new Tensor("float32", x, [1, CONTEXT + WINDOW]), state, sr });
      state = out.stateN as typeof state;
      context = x.slice(WINDOW);
      probs[i] = Math.round((out.output!.data as Float32Array)[0]! * 1e4) / 1e4;
    }
    return { frame_seconds: WINDOW / SILERO_SAMPLE_RATE, probs };
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

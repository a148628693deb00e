/**
 * Diarization's neural models in-process (onnxruntime-node, graphs built from the verified PyTorch
 * checkpoints) against the Python speech worker on the shared phone call: the same embeddings, the
 * same segmentation probabilities, the same speaker labels (the compiled executable without Python:
 * test/e2e/no-python.test.ts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openWav } from "../../src/media/wav.ts";
import { cosine } from "../../src/pipeline/vector-math.ts";
import { resolveModel } from "../../src/models/store.ts";
import { labelSpeakers, SEGMENTATION_MODEL, SPEAKER_EMBEDDING_MODEL } from "../../src/pipeline/transcribe/diarize.ts";
import { embeddingWindows } from "../../src/pipeline/transcribe/diarize-embeddings.ts";
import { planSpeakerEngine, segmentationProbabilities, speakerEmbeddings } from "../../src/pipeline/transcribe/speaker-engine.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { speechRegions } from "../../src/pipeline/transcribe/vad.ts";
import { speechProbabilities } from "../../src/pipeline/transcribe/vad-engine.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { SHARED_PRESENT, describeShared } from "../helpers/shared.ts";

// A copy: the worker's windows file is written beside the WAV, and the shared recordings stay untouched.
const work = mkdtempSync(join(tmpdir(), "clipyard-speaker-engines-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const CALL = join(work, "two_speakers_call.wav");
if (SHARED_PRESENT) copyFileSync(join(SHARED_MEDIA, "two_speakers_call.wav"), CALL);
const SLOW = 180_000;

describeShared("speaker models: in-process equals the Python worker", () => {
  test("CAM++: every window's embedding at cosine >= 0.999 to the worker's", async () => {
    const inProcess = await planSpeakerEngine("onnxruntime");
    const worker = await planSpeakerEngine("python");
    expect(inProcess.engine).toBe("onnxruntime-node");
    const audio = openWav(CALL);
    try {
      // The diarizer's own windows over the whole call, a few of other lengths (each length is its own
      // batch), and two long enough for CAM++'s 100-frame context pooling to span several segments.
      const windows: [number, number][] = [...embeddingWindows([[0, audio.length / 16000]]).map((w): [number, number] => [w.start, w.end]), [3.1, 3.6], [12.25, 14.0], [20.0, 20.45], [5, 12.3], [0, 29.9]];
      const model = resolveModel(SPEAKER_EMBEDDING_MODEL);
      const ours = await speakerEmbeddings(inProcess, model, CALL, audio, windows);
      const ref = await speakerEmbeddings(worker, model, CALL, audio, windows);
      expect(ours.length).toBe(windows.length);
      let worst = 1;
      let leastAlike = 1;
      for (let i = 0; i < windows.length; i++) {
        expect(ours[i]!.length).toBe(192);
        worst = Math.min(worst, cosine(ours[i]!, ref[i]!));
        leastAlike = Math.min(leastAlike, cosine(ref[0]!, ref[i]!));
      }
      expect(worst).toBeGreaterThanOrEqual(0.999);
      // Two voices: some windows' embeddings point elsewhere, so agreement is not a constant output.
      expect(leastAlike).toBeLessThan(0.5);
    } finally {
      audio.close();
    }
  }, SLOW);

  test("segmentation-3.0: speech and overlap probabilities within 1e-3 of the worker's, and the same classes per chunk", async () => {
    const audio = openWav(CALL);
    try {
      const model = resolveModel(SEGMENTATION_MODEL);
      const ours = await segmentationProbabilities(await planSpeakerEngine("onnxruntime"), model, CALL, audio);
      const ref = await segmentationProbabilities(await planSpeakerEngine("python"), model, CALL, audio);
      expect(ours.frame_seconds).toBe(ref.frame_seconds);
      expect(ours.speech.length).toBe(ref.speech.length);
      expect(ours.overlap.length).toBe(ref.overlap.length);
      let maxDiff = 0;
      for (let i = 0; i < ref.speech.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(ours.speech[i]! - ref.speech[i]!), Math.abs(ours.overlap[i]! - ref.overlap[i]!));
      }
      // Both sides round to 3 decimals: one step of rounding is the most they may differ.
      expect(maxDiff).toBeLessThanOrEqual(1e-3 + 1e-9);
      expect(Math.max(...ours.speech)).toBeGreaterThan(0.9);
      expect(Math.min(...ours.speech)).toBeLessThan(0.1);
      // Each chunk's own speakers: the same chunks, and the same most likely class on (nearly) every
      // frame (float32 against float64 can tip a near tie).
      expect(ours.first_frame_seconds).toBe(ref.first_frame_seconds);
      expect(ours.chunks.map((c) => c.start)).toEqual(ref.chunks.map((c) => c.start));
      let frames = 0;
      let same = 0;
      ours.chunks.forEach((c, k) => {
        expect(c.classes).toMatch(/^[0-6]+$/);
        expect(c.classes.length).toBe(ref.chunks[k]!.classes.length);
        for (let f = 0; f < c.classes.length; f++) {
          frames++;
          if (c.classes[f] === ref.chunks[k]!.classes[f]) same++;
        }
      });
      expect(same / frames).toBeGreaterThan(0.995);
      // Two people talk on the call, and somewhere both at once.
      expect(ours.chunks.some((c) => new Set(c.classes.replace(/[0456]/g, "")).size === 2)).toBe(true);
      expect(ours.chunks.some((c) => /[456]/.test(c.classes))).toBe(true);
    } finally {
      audio.close();
    }
  }, SLOW);

  test("the phone call's words get the same speakers from either engine, and the engine line says where they ran", async () => {
    const t = await transcribeFile(CALL, { diarize: false });
    const audio = openWav(CALL);
    try {
      const vad = await speechProbabilities(CALL, audio, resolveModel("silero-vad"));
      const regions = speechRegions(vad.probs, vad.frame_seconds, audio.length / audio.sampleRate);
      const input = { wav: CALL, audio, regions, words: t.words };
      const ours = await labelSpeakers({ ...input, engine: "onnxruntime" });
      const ref = await labelSpeakers({ ...input, engine: "python" });
      expect(ours.warning).toBeUndefined();
      expect(ours.engine).toBe("CAM++ speaker embeddings (campplus-zh-en) in-process + pyannote segmentation-3.0 speech and overlap in-process");
      expect(ref.engine).toBe("CAM++ speaker embeddings (campplus-zh-en) + pyannote segmentation-3.0 speech and overlap");
      expect(new Set(ours.speakers)).toEqual(new Set(["Speaker 1", "Speaker 2"]));
      expect(ours.speakers).toEqual(ref.speakers);
    } finally {
      audio.close();
    }
  }, SLOW);
});

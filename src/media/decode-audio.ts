import { closeSync, fstatSync, openSync, readSync, rmSync, writeSync } from "node:fs";
import { ffmpeg, ffmpegBounded, mediaInput } from "./ffmpeg.ts";
import { MediaProbeError } from "./probe.ts";
import { SpeechLevelMeter, speechGain, toPcm16 } from "./speech-level.ts";
import { readWav, wavHeader16, type Pcm } from "./wav.ts";

/**
 * The audio decodes to more than the caller allowed (the length cap, or a small multiple of what the
 * file's header claims): decoding stopped there, so a tiny file that holds hours costs no more.
 */
export class DecodedTooLongError extends MediaProbeError {
  constructor(
    path: string,
    readonly limitSeconds: number,
  ) {
    super(`${path} decodes to more than ${Math.round(limitSeconds)} s of audio; decoding stopped there`);
    this.name = "DecodedTooLongError";
  }
}

/** What the speech models take. */
const SPEECH_RATE = 16000;

/** Output arguments: the input's first audio stream as mono 16-bit PCM WAV at `sampleRate`. */
const monoWav = (sampleRate: number) => ["-map", "0:a:0", "-vn", "-ac", "1", "-ar", String(sampleRate), "-c:a", "pcm_s16le", "-f", "wav"];

/** Below the voice band: rumble, handling noise and mains hum that the level measurement would count as speech. In float: on 16-bit input the filter would otherwise round at the input level, before the gain. */
const SPEECH_HIGHPASS = "aformat=sample_fmts=fltp,highpass=f=80";

/**
 * Decodes the first audio stream of any file ffmpeg reads to 16 kHz mono 16-bit PCM WAV (what the
 * speech models take), with the engine in use (native, or the embedded WebAssembly ffmpeg): high-passed
 * at 80 Hz and brought to a common speech level (`speech-level.ts`), so quiet and far-field recordings
 * reach voice activity detection and recognition at the level loud ones do.
 */
export async function decodeToSpeechWav(input: string, output: string, opts: { maxSeconds?: number } = {}): Promise<{ gainDb: number; seconds: number }> {
  // Float until the gain is applied: a quiet file quantised to 16 bits first would keep its coarse steps.
  const raw = `${output}.f32`;
  const maxSeconds = opts.maxSeconds ?? Number.POSITIVE_INFINITY;
  const limited = Number.isFinite(maxSeconds);
  // -t (one second past the bound) stops the WebAssembly engine, which cannot be counted while it runs.
  const r = await ffmpegBounded(
    ["-v", "error", "-y", ...mediaInput(input), "-map", "0:a:0", "-vn", "-af", SPEECH_HIGHPASS, "-ac", "1", "-ar", String(SPEECH_RATE), ...(limited ? ["-t", String(maxSeconds + 1)] : []), "-c:a", "pcm_f32le", "-f", "f32le"],
    raw,
    limited ? Math.ceil(maxSeconds * SPEECH_RATE) * 4 : Number.MAX_SAFE_INTEGER,
  );
  try {
    if (r.overLimit) throw new DecodedTooLongError(input, maxSeconds);
    if (r.code !== 0) throw new MediaProbeError(`ffmpeg could not decode the audio of ${input}: ${r.stderr.trim().split("\n").pop() || `exit ${r.code}`}`);
    const seconds = fileSize(raw) / 4 / SPEECH_RATE;
    // Two passes over the float file in blocks (measure, then write), so memory stays flat in the
    // episode's length: four hours of float samples would be 0.9 GB at once.
    const meter = new SpeechLevelMeter(SPEECH_RATE);
    forEachFloatBlock(raw, (samples) => meter.add(samples));
    const { level, peak } = meter.result();
    const gain = speechGain(level, peak);
    const out = openSync(output, "w");
    try {
      writeSync(out, wavHeader16(SPEECH_RATE, (fileSize(raw) / 4) * 2));
      forEachFloatBlock(raw, (samples) => {
        const pcm = toPcm16(samples, gain);
        writeSync(out, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
      });
    } finally {
      closeSync(out);
    }
    return { gainDb: 20 * Math.log10(gain), seconds };
  } finally {
    rmSync(raw, { force: true });
  }
}

const FLOAT_BLOCK_BYTES = 4 << 20;

function fileSize(path: string): number {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    return size - (size % 4);
  } finally {
    closeSync(fd);
  }
}

/** The little-endian float32 samples of a raw file, a few MB at a time (x86 and ARM are little-endian like the file). */
function forEachFloatBlock(path: string, fn: (samples: Float32Array) => void): void {
  const fd = openSync(path, "r");
  const buf = new Uint8Array(FLOAT_BLOCK_BYTES);
  try {
    const total = fileSize(path);
    for (let pos = 0; pos < total; ) {
      const n = readSync(fd, buf, 0, Math.min(FLOAT_BLOCK_BYTES, total - pos), pos);
      if (n <= 0) break;
      fn(new Float32Array(buf.buffer, 0, Math.floor(n / 4)));
      pos += n;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * One window of a file's first audio stream as mono PCM at `sampleRate`, through a WAV file at
 * `wavPath` (left in place for the caller's work folder to remove), with the engine in use.
 */
export async function decodeWindow(input: string, window: { start: number; duration: number }, wavPath: string, sampleRate: number): Promise<Pcm> {
  await ffmpeg([
    "-v", "error", "-y", "-ss", window.start.toFixed(3), "-t", window.duration.toFixed(3), ...mediaInput(input), ...monoWav(sampleRate), wavPath,
  ]);
  return readWav(wavPath);
}

import { ffmpeg, mediaInput } from "./ffmpeg.ts";
import { MediaProbeError } from "./probe.ts";
import { readWav, type Pcm } from "./wav.ts";

/** Output arguments: the input's first audio stream as mono 16-bit PCM WAV at `sampleRate`. */
const monoWav = (sampleRate: number) => ["-map", "0:a:0", "-vn", "-ac", "1", "-ar", String(sampleRate), "-c:a", "pcm_s16le", "-f", "wav"];

/**
 * Decodes the first audio stream of any file ffmpeg reads to 16 kHz mono 16-bit PCM WAV (what the
 * speech models take), with the engine in use (native, or the embedded WebAssembly ffmpeg).
 */
export async function decodeToSpeechWav(input: string, output: string): Promise<void> {
  const r = await ffmpeg(["-v", "error", "-y", ...mediaInput(input), ...monoWav(16000), output], { allowFailure: true });
  if (r.code !== 0) throw new MediaProbeError(`ffmpeg could not decode the audio of ${input}: ${r.stderr.trim().split("\n").pop() || `exit ${r.code}`}`);
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

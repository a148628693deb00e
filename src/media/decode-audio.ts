import { ffmpeg } from "./ffmpeg.ts";
import { MediaProbeError } from "./probe.ts";

/**
 * Decodes the first audio stream of any file ffmpeg reads to 16 kHz mono 16-bit PCM WAV (what the
 * speech models take), with the engine in use (native, or the embedded WebAssembly ffmpeg).
 */
export async function decodeToSpeechWav(input: string, output: string): Promise<void> {
  const r = await ffmpeg(["-v", "error", "-y", "-i", input, "-map", "0:a:0", "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", output], { allowFailure: true });
  if (r.code !== 0) throw new MediaProbeError(`ffmpeg could not decode the audio of ${input}: ${r.stderr.trim().split("\n").pop() || `exit ${r.code}`}`);
}

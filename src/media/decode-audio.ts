import { loadConfig } from "../config.ts";
import { MediaProbeError } from "./probe.ts";

/** Decodes the first audio stream of any file ffmpeg reads to 16 kHz mono 16-bit PCM WAV (what the speech models take). */
export async function decodeToSpeechWav(input: string, output: string): Promise<void> {
  const ffmpeg = loadConfig().ffmpegPath ?? "ffmpeg";
  const proc = Bun.spawn([ffmpeg, "-nostdin", "-v", "error", "-y", "-i", input, "-map", "0:a:0", "-vn", "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-f", "wav", output], {
    stdout: "ignore",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new MediaProbeError(`ffmpeg could not decode the audio of ${input}: ${err.trim().split("\n").pop() || `exit ${code}`}`);
}


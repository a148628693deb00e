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

/** Reads a 16-bit PCM mono WAV produced by decodeToSpeechWav into floats in [-1, 1]. */
export function readPcm16Wav(bytes: Uint8Array): { sampleRate: number; samples: Float32Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12;
  let sampleRate = 0;
  while (offset + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    if (id === "fmt ") sampleRate = view.getUint32(offset + 12, true);
    if (id === "data") {
      const n = Math.floor(Math.min(size, bytes.length - offset - 8) / 2);
      const samples = new Float32Array(n);
      for (let i = 0; i < n; i++) samples[i] = view.getInt16(offset + 8 + 2 * i, true) / 32768;
      return { sampleRate, samples };
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error("WAV has no data chunk");
}

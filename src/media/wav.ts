import { readFileSync } from "node:fs";

/** The one WAV reader: every stage that reads decoded audio (speech, ranking features) uses it. */
export interface Pcm {
  sampleRate: number;
  /** Mono samples in -1..1 (channels averaged). */
  samples: Float32Array;
}

/** Reads a RIFF/WAVE file with 16-bit integer or 32-bit float PCM, channels averaged to mono. */
export function readWav(path: string): Pcm {
  return parseWav(readFileSync(path), path);
}

/** The 44-byte header of a mono 16-bit PCM WAV file with `dataBytes` of samples after it. */
export function wavHeader16(sampleRate: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "ascii");
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write("WAVEfmt ", 8, "ascii");
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36, "ascii");
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

export function parseWav(bytes: Uint8Array, path = "WAV"): Pcm {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.toString("ascii", 0, 4) !== "RIFF" || buf.toString("ascii", 8, 12) !== "WAVE") throw new Error(`${path}: not a WAVE file`);
  let off = 12;
  let format = 0;
  let channels = 0;
  let sampleRate = 0;
  let bits = 0;
  while (off + 8 <= buf.length) {
    const id = buf.toString("ascii", off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    const body = off + 8;
    if (id === "fmt ") {
      format = buf.readUInt16LE(body);
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
      // WAVE_FORMAT_EXTENSIBLE carries the real format in its sub-format GUID.
      if (format === 0xfffe && size >= 26) format = buf.readUInt16LE(body + 24);
    } else if (id === "data") {
      if (!channels) throw new Error(`${path}: data before fmt chunk`);
      const end = Math.min(buf.length, body + size);
      const frameBytes = (bits / 8) * channels;
      const n = Math.floor((end - body) / frameBytes);
      const samples = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let c = 0; c < channels; c++) {
          const p = body + i * frameBytes + (c * bits) / 8;
          if (format === 1 && bits === 16) s += buf.readInt16LE(p) / 32768;
          else if (format === 3 && bits === 32) s += buf.readFloatLE(p);
          else throw new Error(`${path}: unsupported WAV format ${format}/${bits}-bit`);
        }
        samples[i] = s / channels;
      }
      return { sampleRate, samples };
    }
    off = body + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";

/** The one WAV reader: every stage that reads decoded audio (speech, ranking features) uses it. */
export interface Pcm {
  sampleRate: number;
  /** Mono samples in -1..1 (channels averaged). */
  samples: Float32Array;
}

/**
 * Mono audio read a window at a time: stages that walk a whole episode use it so that their memory
 * does not grow with the episode's length (a 4-hour 16 kHz WAV is 460 MB, 920 MB as floats).
 */
export interface PcmSource {
  sampleRate: number;
  /** Samples in the whole source. */
  length: number;
  /** Samples [start, start + count), clipped to the source, as mono -1..1. */
  read(start: number, count: number): Float32Array;
}

interface WavLayout {
  format: number;
  channels: number;
  sampleRate: number;
  bits: number;
  /** Byte offset of the first sample and the bytes of whole frames after it. */
  dataOffset: number;
  dataBytes: number;
}

/** Walks the RIFF chunks through `readAt(offset, length)` up to the data chunk. */
function wavLayout(readAt: (offset: number, length: number) => Buffer, fileBytes: number, path: string): WavLayout {
  const head = readAt(0, 12);
  if (head.toString("ascii", 0, 4) !== "RIFF" || head.toString("ascii", 8, 12) !== "WAVE") throw new Error(`${path}: not a WAVE file`);
  let off = 12;
  let fmt: Omit<WavLayout, "dataOffset" | "dataBytes"> | undefined;
  while (off + 8 <= fileBytes) {
    const chunk = readAt(off, 8);
    const id = chunk.toString("ascii", 0, 4);
    const size = chunk.readUInt32LE(4);
    const body = off + 8;
    if (id === "fmt ") {
      const b = readAt(body, Math.min(size, 40));
      let format = b.readUInt16LE(0);
      // WAVE_FORMAT_EXTENSIBLE carries the real format in its sub-format GUID.
      if (format === 0xfffe && size >= 26) format = b.readUInt16LE(24);
      fmt = { format, channels: b.readUInt16LE(2), sampleRate: b.readUInt32LE(4), bits: b.readUInt16LE(14) };
    } else if (id === "data") {
      if (!fmt?.channels) throw new Error(`${path}: data before fmt chunk`);
      if (!((fmt.format === 1 && fmt.bits === 16) || (fmt.format === 3 && fmt.bits === 32))) throw new Error(`${path}: unsupported WAV format ${fmt.format}/${fmt.bits}-bit`);
      const frameBytes = (fmt.bits / 8) * fmt.channels;
      const bytes = Math.min(fileBytes, body + size) - body;
      return { ...fmt, dataOffset: body, dataBytes: bytes - (bytes % frameBytes) };
    }
    off = body + size + (size % 2);
  }
  throw new Error(`${path}: no data chunk`);
}

/** Frames of `bytes` (whole frames, from the data chunk) as mono samples, channels averaged. */
function decodeFrames(bytes: Buffer, l: WavLayout): Float32Array {
  const frameBytes = (l.bits / 8) * l.channels;
  const n = Math.floor(bytes.length / frameBytes);
  const samples = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let c = 0; c < l.channels; c++) {
      const p = i * frameBytes + (c * l.bits) / 8;
      s += l.bits === 16 ? bytes.readInt16LE(p) / 32768 : bytes.readFloatLE(p);
    }
    samples[i] = s / l.channels;
  }
  return samples;
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
  const l = wavLayout((o, n) => buf.subarray(o, o + n), buf.length, path);
  return { sampleRate: l.sampleRate, samples: decodeFrames(buf.subarray(l.dataOffset, l.dataOffset + l.dataBytes), l) };
}

/** A WAV file as a PcmSource reading from disk on demand; close() when done. */
export function openWav(path: string): PcmSource & { close(): void } {
  const fd = openSync(path, "r");
  try {
    const readAt = (offset: number, length: number): Buffer => {
      const b = Buffer.alloc(length);
      const got = readSync(fd, b, 0, length, offset);
      return b.subarray(0, got);
    };
    const l = wavLayout(readAt, fstatSync(fd).size, path);
    const frameBytes = (l.bits / 8) * l.channels;
    const length = l.dataBytes / frameBytes;
    return {
      sampleRate: l.sampleRate,
      length,
      read(start, count) {
        const a = Math.max(0, Math.min(length, start));
        const b = Math.max(a, Math.min(length, start + count));
        return decodeFrames(readAt(l.dataOffset + a * frameBytes, (b - a) * frameBytes), l);
      },
      close: () => closeSync(fd),
    };
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** Samples already in memory as a PcmSource. */
export function pcmSource(pcm: Pcm): PcmSource {
  const length = pcm.samples.length;
  return {
    sampleRate: pcm.sampleRate,
    length,
    read: (start, count) => pcm.samples.subarray(Math.max(0, Math.min(length, start)), Math.max(0, Math.min(length, start + count))),
  };
}

/** Calls fn on consecutive blocks of `block` samples (the last one shorter) with each block's first index. */
export function forEachBlock(source: PcmSource, block: number, fn: (samples: Float32Array, start: number) => void): void {
  for (let start = 0; start < source.length; start += block) fn(source.read(start, block), start);
}

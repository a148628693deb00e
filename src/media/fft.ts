/**
 * In-place radix-2 FFT for the audio features (the speaker models' Kaldi fbank, the MFCC fallback's
 * filterbank). Twiddles and the bit-reversal order come from tables made once per size, not from a
 * running product, so every frame gets the same rounding as numpy's.
 */
interface Tables {
  rev: Uint32Array;
  cos: Float64Array;
  sin: Float64Array;
}

const tables = new Map<number, Tables>();

function tablesFor(n: number): Tables {
  let t = tables.get(n);
  if (!t) {
    const bits = Math.log2(n);
    if (!Number.isInteger(bits)) throw new Error(`FFT size must be a power of two (got ${n})`);
    const rev = Uint32Array.from({ length: n }, (_, i) => {
      let r = 0;
      for (let b = 0; b < bits; b++) if (i & (1 << b)) r |= 1 << (bits - 1 - b);
      return r;
    });
    t = {
      rev,
      cos: Float64Array.from({ length: n / 2 }, (_, i) => Math.cos((-2 * Math.PI * i) / n)),
      sin: Float64Array.from({ length: n / 2 }, (_, i) => Math.sin((-2 * Math.PI * i) / n)),
    };
    tables.set(n, t);
  }
  return t;
}

/** The discrete Fourier transform of (re, im), in place; the length is a power of two. */
export function fftInPlace(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  const { rev, cos, sin } = tablesFor(n);
  for (let i = 0; i < n; i++) {
    const j = rev[i]!;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let size = 2; size <= n; size <<= 1) {
    const half = size >> 1;
    const step = n / size;
    for (let start = 0; start < n; start += size) {
      for (let j = 0; j < half; j++) {
        const a = start + j;
        const b = a + half;
        const c = cos[j * step]!;
        const s = sin[j * step]!;
        const tr = re[b]! * c - im[b]! * s;
        const ti = re[b]! * s + im[b]! * c;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}

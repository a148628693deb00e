/**
 * Voice activity: turns Silero's per-frame speech probabilities into speech regions. Pure logic;
 * the model runs in-process or in the speech worker (src/pipeline/transcribe/vad-engine.ts).
 */
export interface VadOptions {
  /** Probability above which a frame starts speech. */
  threshold: number;
  /** Speech continues until the probability drops below this (hysteresis). */
  negThreshold: number;
  /** Pauses shorter than this stay inside one region. */
  minSilenceSeconds: number;
  /** Regions shorter than this are dropped as clicks. */
  minSpeechSeconds: number;
  /** Padding kept around each region so word edges are not clipped. */
  padSeconds: number;
}

export const DEFAULT_VAD: VadOptions = { threshold: 0.5, negThreshold: 0.35, minSilenceSeconds: 0.5, minSpeechSeconds: 0.25, padSeconds: 0.2 };

export type Region = [start: number, end: number];

/**
 * The mean of a series of per-frame values (Silero's probabilities, loudness) over the frames a span
 * touches; undefined when it touches none.
 */
export function meanOverFrames(values: ArrayLike<number>, frameSeconds: number, span: { start: number; end: number }): number | undefined {
  const from = Math.max(0, Math.floor(span.start / frameSeconds));
  const to = Math.min(values.length, Math.ceil(span.end / frameSeconds));
  if (to <= from) return undefined;
  let s = 0;
  for (let i = from; i < to; i++) s += values[i]!;
  return s / (to - from);
}

export function speechRegions(probs: ArrayLike<number>, frameSeconds: number, duration: number, opts: VadOptions = DEFAULT_VAD): Region[] {
  const raw: Region[] = [];
  let start = -1;
  let silenceSince = -1;
  for (let i = 0; i < probs.length; i++) {
    const p = probs[i]!;
    const t = i * frameSeconds;
    if (start < 0) {
      if (p >= opts.threshold) start = t;
      continue;
    }
    if (p < opts.negThreshold) {
      if (silenceSince < 0) silenceSince = t;
      if (t + frameSeconds - silenceSince >= opts.minSilenceSeconds) {
        raw.push([start, silenceSince]);
        start = -1;
        silenceSince = -1;
      }
    } else if (p >= opts.threshold) {
      silenceSince = -1;
    }
  }
  if (start >= 0) raw.push([start, silenceSince >= 0 ? silenceSince : Math.min(duration, probs.length * frameSeconds)]);
  const kept = raw.filter(([a, b]) => b - a >= opts.minSpeechSeconds);
  return mergeRegions(kept.map(([a, b]) => [Math.max(0, a - opts.padSeconds), Math.min(duration, b + opts.padSeconds)]));
}

/** Sorted, overlapping or touching regions joined. */
export function mergeRegions(regions: Region[]): Region[] {
  const sorted = [...regions].sort((x, y) => x[0] - y[0]);
  const out: Region[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else out.push([r[0], r[1]]);
  }
  return out;
}

export const totalSeconds = (regions: Region[]): number => regions.reduce((s, [a, b]) => s + (b - a), 0);

/** `regions` less the parts inside `cut`. */
export function withoutRegions(regions: Region[], cut: Region[]): Region[] {
  const out: Region[] = [];
  for (const [a, b] of regions) {
    let t = a;
    for (const [c, d] of [...cut].sort((x, y) => x[0] - y[0])) {
      if (d <= t || c >= b) continue;
      if (c > t) out.push([t, c]);
      t = Math.max(t, d);
    }
    if (t < b) out.push([t, b]);
  }
  return out;
}

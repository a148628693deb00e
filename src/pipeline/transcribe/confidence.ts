/**
 * Where the recogniser was least sure, so an editor knows where to listen. The rule (docs/api.md,
 * "Word confidence"):
 *
 * - every run of WINDOW consecutive words (no pause over MAX_GAP_SECONDS inside) whose mean word
 *   probability is under DOUBT_BELOW is doubtful; overlapping doubtful runs join into one stretch,
 *   less the words at its edges that are themselves at or over DOUBT_BELOW;
 * - the MAX_STRETCHES stretches with the lowest mean are named in the job's warnings, in time order.
 *
 * Words without a probability (whisper.cpp's addon reports none) never make a stretch.
 */
interface ScoredWord {
  word: string;
  start: number;
  end: number;
  p?: number;
}

export const WINDOW = 5;
export const DOUBT_BELOW = 0.5;
export const MAX_STRETCHES = 3;
const MAX_GAP_SECONDS = 2;
const MAX_QUOTE_CHARS = 80;

export interface DoubtfulStretch {
  start: number;
  end: number;
  text: string;
  meanProbability: number;
}

export function findDoubtfulStretches(words: readonly ScoredWord[]): DoubtfulStretch[] {
  const n = Math.min(WINDOW, words.length);
  if (n === 0) return [];
  const doubtful = new Array<boolean>(words.length).fill(false);
  for (let i = 0; i + n <= words.length; i++) {
    const run = words.slice(i, i + n);
    if (run.some((w) => typeof w.p !== "number")) continue;
    if (run.some((w, k) => k > 0 && w.start - run[k - 1]!.end > MAX_GAP_SECONDS)) continue;
    const mean = run.reduce((s, w) => s + w.p!, 0) / n;
    if (mean < DOUBT_BELOW) for (let k = i; k < i + n; k++) doubtful[k] = true;
  }
  const stretches: DoubtfulStretch[] = [];
  for (let i = 0; i < words.length; ) {
    if (!doubtful[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < words.length && doubtful[j + 1] && words[j + 1]!.start - words[j]!.end <= MAX_GAP_SECONDS) j++;
    const next = j + 1;
    const sure = (w: ScoredWord) => w.p! >= DOUBT_BELOW;
    while (i < j && sure(words[i]!)) i++;
    while (j > i && sure(words[j]!)) j--;
    const run = words.slice(i, j + 1);
    const text = run.map((w) => w.word).join(" ");
    stretches.push({
      start: run[0]!.start,
      end: run[run.length - 1]!.end,
      text: text.length > MAX_QUOTE_CHARS ? `${text.slice(0, MAX_QUOTE_CHARS - 1).trimEnd()}…` : text,
      meanProbability: run.reduce((s, w) => s + w.p!, 0) / run.length,
    });
    i = next;
  }
  return stretches
    .sort((a, b) => a.meanProbability - b.meanProbability)
    .slice(0, MAX_STRETCHES)
    .sort((a, b) => a.start - b.start);
}

/** The job's warnings for the doubtful stretches. */
export function doubtfulStretches(words: readonly ScoredWord[]): string[] {
  return findDoubtfulStretches(words).map(
    (s) => `the recogniser was least sure of ${s.start.toFixed(1)}-${s.end.toFixed(1)} s ("${s.text}", mean word probability ${s.meanProbability.toFixed(2)}); check these words`,
  );
}

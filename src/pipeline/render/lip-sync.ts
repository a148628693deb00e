/**
 * Audio-visual synchrony: whose lips move with the voice. A listener who nods, laughs or mouths
 * along moves their mouth as much as the speaker, but not in time with the speaker's syllables; the
 * speaker's mouth opens as their speech gets loud. So a face is tied to a voice by how well its
 * mouth opening follows the loudness of the audio at lip-sync time scales, never by how much it moves.
 */

/** A face's mouth readings: the tracking samples, and the dense lip-sync readings where taken (faces.ts FaceTrack). */
export interface MouthTrack {
  obs: { t: number; mouthOpen?: number }[];
  lip?: { t: number; mouthOpen: number }[];
}

/** A speaker's span of talk (faces.ts Turn). */
interface Turn {
  speaker: string;
  start: number;
  end: number;
}

/** Loudness of the audio over time: log RMS per hop, starting at `start` (source seconds). */
export interface SpeechEnvelope {
  start: number;
  hop: number;
  values: Float32Array;
}

/** Hop of the envelope: fine enough for any window below. */
const HOP_SECONDS = 0.01;
/**
 * The envelope at a mouth sample is its mean over this window: the step between mouth samples
 * (LIP_SYNC_FPS), so every stretch of sound is seen by one sample, and shorter than a syllable.
 */
export const ENVELOPE_WINDOW_SECONDS = 0.1;
/**
 * Mouth samples per second for lip sync. Syllables come at 4-5 a second, so a mouth must be read at
 * least twice per syllable to see it open and close: at 6.25 a second a listener's unrelated mouth
 * correlated with the voice as well as the speaker's on synthetic syllables (aliasing), at 10 the
 * speaker's led by 0.3 or more. At 2 a second, as for tracking alone, the opening is noise.
 */
export const LIP_SYNC_FPS = 10;
/**
 * Audio-visual offsets searched, in seconds (audio later than the mouth is positive). Lips lead the
 * sound they make by a few tens of milliseconds and broadcast keeps the offset within about 0.1 s;
 * a wider search only lets chance alignments of a listener's mouth with the voice win.
 */
export const LAGS_SECONDS = [-0.08, -0.04, 0, 0.04, 0.08];
/**
 * A mouth whose opening varies less than this (standard deviation, share of face height) in a span
 * does not move, and follows no voice there: correlation is blind to scale, and a frozen face's
 * readings still wobble by 0.0002 with the encoder's noise, which rises and falls with the motion
 * elsewhere in the frame, so with the speaker's voice (a frozen listener read 0.5-0.6 in time with
 * it). A talking mouth's opening varies by 0.01 or more.
 */
const STILL_MOUTH_SD = 0.002;
/** A turn gives a synchrony reading only with this many mouth samples in it (0.8 s at LIP_SYNC_FPS). */
const MIN_SAMPLES = 8;
/**
 * Mouths are read at LIP_SYNC_FPS only in a few windows per speaker, each at most this long: reading
 * every frame at 10 fps through a whole clip cost 4-5 times the 2 fps tracking pass, and a few
 * seconds of each voice tie it to its face (the talking heads' 4 s turns gave 0.4-0.6 in sync against
 * under 0.2 out of it).
 */
export const LIP_SYNC_WINDOW_SECONDS = 4;
export const LIP_SYNC_WINDOWS_PER_SPEAKER = 2;
/**
 * A speaker tied to a face by this much after one window each (own-voice sync minus sync with the
 * others') needs no second window: one 4 s window reads to about ±0.15, so 0.4 leaves the tie above
 * the crop's 0.15 trust threshold however the second would read. Still or clearly talking faces get
 * there (0.66-0.99 on the talking heads), and their second windows were half the face analysis; a
 * listener who mouths along (0.2-0.45) gets both.
 */
export const DECISIVE_SYNC = 0.4;

export function speechEnvelope(samples: Float32Array, sampleRate: number, start = 0): SpeechEnvelope {
  const per = Math.max(1, Math.round(HOP_SECONDS * sampleRate));
  const values = new Float32Array(Math.floor(samples.length / per));
  for (let i = 0; i < values.length; i++) {
    let sum = 0;
    for (let j = i * per; j < (i + 1) * per; j++) sum += samples[j]! * samples[j]!;
    // Log: a syllable's rise from silence counts as much in a quiet voice as in a loud one.
    values[i] = Math.log(1e-5 + Math.sqrt(sum / per));
  }
  return { start, hop: per / sampleRate, values };
}

/** Mean envelope over [t - window/2, t + window/2]; undefined outside the audio. */
export function envelopeAt(env: SpeechEnvelope, t: number, window = ENVELOPE_WINDOW_SECONDS): number | undefined {
  const a = Math.max(0, Math.round((t - window / 2 - env.start) / env.hop));
  const b = Math.min(env.values.length, Math.round((t + window / 2 - env.start) / env.hop));
  if (b <= a) return undefined;
  let sum = 0;
  for (let i = a; i < b; i++) sum += env.values[i]!;
  return sum / (b - a);
}

/** Pearson correlation; 0 when either series does not vary (a frozen face follows no voice). */
export function pearson(x: number[], y: number[]): number {
  const n = x.length;
  if (n < 2) return 0;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxx > 1e-12 && syy > 1e-12 ? sxy / Math.sqrt(sxx * syy) : 0;
}

/**
 * How well a face's mouth follows the voice in the given spans: the correlation of mouth opening
 * with the envelope in each span, averaged over spans weighted by their samples, at the one offset
 * (LAGS_SECONDS) that suits all the spans best. Undefined when no span has MIN_SAMPLES readings.
 */
export function lipSync(track: MouthTrack, env: SpeechEnvelope, spans: { start: number; end: number }[]): number | undefined {
  const series = track.lip ?? track.obs;
  let best: number | undefined;
  for (const lag of LAGS_SECONDS) {
    let sum = 0;
    let weight = 0;
    for (const s of spans) {
      const obs = series.filter((o) => o.t >= s.start && o.t < s.end && o.mouthOpen !== undefined);
      const pairs = obs.map((o) => [o.mouthOpen!, envelopeAt(env, o.t + lag)] as const).filter((p): p is [number, number] => p[1] !== undefined);
      if (pairs.length < MIN_SAMPLES) continue;
      const mouths = pairs.map((p) => p[0]);
      const mean = mouths.reduce((a, b) => a + b, 0) / mouths.length;
      const sd = Math.sqrt(mouths.reduce((a, b) => a + (b - mean) ** 2, 0) / mouths.length);
      sum += (sd < STILL_MOUTH_SD ? 0 : pearson(mouths, pairs.map((p) => p[1]))) * pairs.length;
      weight += pairs.length;
    }
    if (weight > 0 && (best === undefined || sum / weight > best)) best = sum / weight;
  }
  return best;
}

/** The spans of turns in which to read synchrony: each turn less `edge` seconds at both ends. */
export const turnInteriors = (turns: Turn[], edge: number) =>
  turns.map((t) => ({ start: t.start + edge, end: t.end - edge })).filter((s) => s.end > s.start);

/** A window to read mouths in: whose turn it lies in, and its rank among that speaker's windows (0: the longest turn's). */
export interface LipSyncWindow {
  start: number;
  end: number;
  speaker: string;
  rank: number;
}

/**
 * Where to read mouths at LIP_SYNC_FPS: for each speaker, the interiors (`edge` off each end) of
 * their LIP_SYNC_WINDOWS_PER_SPEAKER longest turns, each cut to its middle LIP_SYNC_WINDOW_SECONDS;
 * in time order. Interiors too short for a reading are left out. With `within`, turns are first cut
 * to it, so every window lies inside.
 */
export function lipSyncWindows(turns: Turn[], edge: number, within?: { start: number; end: number }): LipSyncWindow[] {
  // A clip's turns come from the words that overlap it, so a turn can run far outside the clip; only
  // the part inside can be read (a window outside it was a negative decode length: ffmpeg refused it).
  if (within) {
    turns = turns
      .map((t) => ({ ...t, start: Math.max(t.start, within.start), end: Math.min(t.end, within.end) }))
      .filter((t) => t.end > t.start);
  }
  const chosen: LipSyncWindow[] = [];
  for (const speaker of new Set(turns.map((t) => t.speaker))) {
    const longest = turnInteriors(turns.filter((t) => t.speaker === speaker), edge)
      .filter((s) => (s.end - s.start) * LIP_SYNC_FPS >= MIN_SAMPLES)
      .sort((a, b) => b.end - b.start - (a.end - a.start))
      .slice(0, LIP_SYNC_WINDOWS_PER_SPEAKER);
    longest.forEach((s, rank) => {
      const mid = (s.start + s.end) / 2;
      const half = Math.min(s.end - s.start, LIP_SYNC_WINDOW_SECONDS) / 2;
      chosen.push({ start: mid - half, end: mid + half, speaker, rank });
    });
  }
  return chosen.sort((a, b) => a.start - b.start);
}

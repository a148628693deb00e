/**
 * Pure planning of the 9:16 crop window over a wider source: hold a steady window on the active
 * speaker's face for each shot, switch only when the new speaker keeps talking for a while, and
 * pan between shots with an eased move. When it cannot tell who is who, it stacks the two faces
 * ("split") or, failing that, shows the whole frame ("fit").
 */
import type { CropPath } from "./graph.ts";
import type { FaceTrack, SpeakerFaces, Turn } from "./faces.ts";

export interface CropPlanInput {
  tracks: FaceTrack[];
  speakers: SpeakerFaces;
  turns: Turn[];
  srcWidth: number;
  srcHeight: number;
  start: number;
  end: number;
}

export interface CropPlanOptions {
  /** A new speaker must hold the floor this long before the crop moves to them. */
  minShotSeconds: number;
  /** Duration of the eased pan between shots. */
  panSeconds: number;
  /** Below this assignment confidence the speaker's face is not trusted. */
  minConfidence: number;
  /** Time step at which the active speaker is evaluated. */
  stepSeconds: number;
}

export const DEFAULT_CROP_PLAN: CropPlanOptions = { minShotSeconds: 1.0, panSeconds: 0.5, minConfidence: 0.15, stepSeconds: 0.25 };

const even = (n: number) => Math.max(2, Math.floor(n / 2) * 2);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};
/** Smoothstep: zero velocity at both ends of a pan. */
export const ease = (u: number) => u * u * (3 - 2 * u);

export interface Shot {
  from: number;
  to: number;
  track: number;
}

/**
 * The speakers whose face the crop may follow: those tied to one with `minConfidence` or more, and, by
 * elimination, the last one when there are as many faces as speakers and every other speaker is tied
 * with confidence. That speaker was still assigned its face (its mouth follows their voice better than
 * the others', the score is above 0), but one 4 s lip-sync window reads to about ±0.15, so on a short
 * clip a clear speaker can read under the threshold (a listener at 0.8x speed left one at 0.12 and the
 * crop on the listener for the whole turn). With more faces than speakers there is no elimination.
 */
export function trustedFaces(input: Pick<CropPlanInput, "tracks" | "speakers" | "turns">, o: CropPlanOptions = DEFAULT_CROP_PLAN): Map<string, number> {
  const trusted = new Map<string, number>();
  for (const [speaker, track] of input.speakers.bySpeaker) {
    if ((input.speakers.confidence.get(speaker) ?? 0) >= o.minConfidence) trusted.set(speaker, track);
  }
  const speakers = new Set(input.turns.map((t) => t.speaker));
  const left = [...input.speakers.bySpeaker].filter(([speaker]) => !trusted.has(speaker) && speakers.has(speaker));
  if (speakers.size > 1 && input.tracks.length === speakers.size && left.length === 1 && trusted.size === speakers.size - 1) trusted.set(left[0]![0], left[0]![1]);
  return trusted;
}

/** Which assigned face to show at each step, with switches debounced by minShotSeconds. */
export function planShots(input: CropPlanInput, o: CropPlanOptions = DEFAULT_CROP_PLAN): Shot[] {
  const trusted = trustedFaces(input, o);
  const steps: { t: number; track: number | undefined }[] = [];
  for (let t = input.start; t < input.end; t += o.stepSeconds) {
    const turn = input.turns.find((x) => t >= x.start && t < x.end) ?? [...input.turns].reverse().find((x) => x.end <= t && t - x.end < 1.5);
    steps.push({ t, track: turn ? trusted.get(turn.speaker) : undefined });
  }
  const shots: Shot[] = [];
  let current: number | undefined;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i]!;
    if (s.track === undefined || s.track === current) continue;
    if (current !== undefined) {
      // Switch only if the new face stays the target for minShotSeconds (ignoring gaps).
      const horizon = steps.filter((x) => x.t >= s.t && x.t < s.t + o.minShotSeconds && x.track !== undefined);
      if (horizon.some((x) => x.track !== s.track)) continue;
    }
    if (shots.length) shots[shots.length - 1]!.to = s.t;
    shots.push({ from: shots.length ? s.t : input.start, to: input.end, track: s.track });
    current = s.track;
  }
  return shots;
}

/** The crop path for [start, end]; "split" or "fit" when no face can be followed. */
export function planCropPath(input: CropPlanInput, opts: Partial<CropPlanOptions> = {}): CropPath {
  const o = { ...DEFAULT_CROP_PLAN, ...opts };
  const width = even(Math.min(input.srcWidth, input.srcHeight * (9 / 16)));
  const height = even(input.srcHeight);
  const fit: CropPath = { mode: "fit", width, height, keyframes: [] };
  if (input.tracks.length === 0) return fit;
  let shots: Shot[];
  if (input.tracks.length === 1) {
    shots = [{ from: input.start, to: input.end, track: input.tracks[0]!.id }];
  } else {
    shots = planShots(input, o);
    if (shots.length === 0) return splitPanes(input) ?? fit;
  }
  const byId = new Map(input.tracks.map((t) => [t.id, t]));
  const windowX = (shot: Shot) => {
    const tr = byId.get(shot.track)!;
    const inShot = tr.obs.filter((ob) => ob.t >= shot.from - 0.5 && ob.t <= shot.to + 0.5);
    const cx = median((inShot.length ? inShot : tr.obs).map((ob) => ob.cx)) * input.srcWidth;
    return Math.round(Math.min(input.srcWidth - width, Math.max(0, cx - width / 2)));
  };
  const keyframes: CropPath["keyframes"] = [];
  shots.forEach((shot, i) => {
    const x = windowX(shot);
    if (i === 0) {
      keyframes.push({ t: input.start, x, y: 0 });
      return;
    }
    const prevX = keyframes[keyframes.length - 1]!.x;
    const pan = Math.min(o.panSeconds, (shot.to - shot.from) / 2);
    // The pan starts a beat before the new speaker so the cut does not lag their first word.
    const p0 = Math.max(shots[i - 1]!.from, shot.from - pan * 0.3);
    keyframes.push({ t: p0, x: prevX, y: 0 });
    for (let k = 1; k <= 6; k++) {
      const u = k / 6;
      keyframes.push({ t: p0 + u * pan, x: Math.round(prevX + (x - prevX) * ease(u)), y: 0 });
    }
  });
  const last = keyframes[keyframes.length - 1]!;
  keyframes.push({ t: input.end, x: last.x, y: 0 });
  return { mode: "track", width, height, keyframes };
}

/**
 * Unsure who speaks, two people on screen: stack the two most-seen faces, each in a 9:8 window
 * about 2.6 face-widths wide (head and shoulders), so everyone stays visible and large. Undefined
 * when the windows would overlap (people too close for a split: fit is better then).
 */
export function splitPanes(input: Pick<CropPlanInput, "tracks" | "srcWidth" | "srcHeight">): CropPath | undefined {
  const top2 = [...input.tracks].sort((a, b) => b.obs.length - a.obs.length).slice(0, 2);
  if (top2.length < 2) return undefined;
  const faces = top2
    .map((tr) => ({ cx: median(tr.obs.map((o) => o.cx)) * input.srcWidth, cy: median(tr.obs.map((o) => o.cy)) * input.srcHeight, w: median(tr.obs.map((o) => o.w)) * input.srcWidth }))
    .sort((a, b) => a.cx - b.cx);
  let width = even(Math.max(...faces.map((f) => f.w)) * 2.6);
  width = Math.min(width, even(input.srcHeight * (9 / 8)), even(input.srcWidth));
  const height = even(width * (8 / 9));
  const panes = faces.map((f) => ({
    x: Math.round(Math.min(input.srcWidth - width, Math.max(0, f.cx - width / 2))),
    y: Math.round(Math.min(input.srcHeight - height, Math.max(0, f.cy - height * 0.45))),
  }));
  if (panes[0]!.x + width > panes[1]!.x + width * 0.25) return undefined;
  return { mode: "split", width, height, keyframes: [], panes };
}

/** Crop window [x0, x1] (source pixels) at time t along a path (linear between keyframes). */
export function cropWindowAt(path: CropPath, t: number): [number, number] {
  const k = path.keyframes;
  if (!k.length) return [0, path.width];
  let x = k[k.length - 1]!.x;
  if (t <= k[0]!.t) x = k[0]!.x;
  else {
    for (let i = 0; i + 1 < k.length; i++) {
      if (t >= k[i]!.t && t <= k[i + 1]!.t) {
        const u = (t - k[i]!.t) / Math.max(1e-6, k[i + 1]!.t - k[i]!.t);
        x = k[i]!.x + (k[i + 1]!.x - k[i]!.x) * u;
        break;
      }
    }
  }
  return [x, x + path.width];
}

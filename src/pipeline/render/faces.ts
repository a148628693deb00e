/**
 * Pure logic that turns per-frame face detections into identities over time (tracks) and ties
 * tracks to diarized speakers: the speaker's face is the one whose mouth moves in time with that
 * speaker's voice (lip-sync.ts).
 */
import type { FaceRegion } from "../../inference/face-detector.ts";
import { lipSync, turnInteriors, type SpeechEnvelope } from "./lip-sync.ts";

/** One face in one sampled frame, in normalised frame coordinates (0..1). */
export interface FaceObs {
  t: number;
  cx: number;
  cy: number;
  w: number;
  h: number;
  score: number;
  mouthOpen?: number;
}

export interface FaceTrack {
  id: number;
  obs: FaceObs[];
  /** Mouth readings at LIP_SYNC_FPS in the lip-sync windows (attachLipReadings); lipSync reads obs without them. */
  lip?: { t: number; mouthOpen: number }[];
}

export interface Turn {
  speaker: string;
  start: number;
  end: number;
}

/**
 * Greedy nearest-centre association frame to frame. A face joins the closest live track within
 * maxJump (fraction of frame width); tracks unseen for maxGapSeconds end. Short-lived tracks
 * (fewer than minObs detections) are dropped as false positives.
 */
export function buildTracks(frames: { t: number; faces: FaceObs[] }[], opts: { maxJump?: number; maxGapSeconds?: number; minObs?: number } = {}): FaceTrack[] {
  const maxJump = opts.maxJump ?? 0.12;
  const maxGap = opts.maxGapSeconds ?? 1.5;
  const minObs = opts.minObs ?? 3;
  const tracks: FaceTrack[] = [];
  let nextId = 0;
  for (const frame of frames) {
    const live = tracks.filter((tr) => frame.t - tr.obs[tr.obs.length - 1]!.t <= maxGap);
    const pairs: { tr: FaceTrack; f: FaceObs; d: number }[] = [];
    for (const tr of live) {
      const last = tr.obs[tr.obs.length - 1]!;
      for (const f of frame.faces) {
        const d = Math.hypot(f.cx - last.cx, f.cy - last.cy);
        if (d <= maxJump) pairs.push({ tr, f, d });
      }
    }
    pairs.sort((a, b) => a.d - b.d);
    const usedT = new Set<FaceTrack>();
    const usedF = new Set<FaceObs>();
    for (const p of pairs) {
      if (usedT.has(p.tr) || usedF.has(p.f)) continue;
      p.tr.obs.push(p.f);
      usedT.add(p.tr);
      usedF.add(p.f);
    }
    for (const f of frame.faces) if (!usedF.has(f)) tracks.push({ id: nextId++, obs: [f] });
  }
  return tracks.filter((t) => t.obs.length >= minObs);
}

/**
 * Adds each face of densely sampled frames (the lip-sync windows) to the track it continues: the
 * track whose observation nearest in time has the closest centre, within maxJump (as buildTracks),
 * one face per track per frame, closest first.
 */
export function attachLipReadings(tracks: FaceTrack[], frames: { t: number; faces: FaceObs[] }[], maxJump = 0.12): void {
  for (const frame of frames) {
    const pairs: { tr: FaceTrack; f: FaceObs; d: number }[] = [];
    for (const tr of tracks) {
      const near = tr.obs.reduce((a, b) => (Math.abs(b.t - frame.t) < Math.abs(a.t - frame.t) ? b : a));
      if (Math.abs(near.t - frame.t) > 1.5) continue;
      for (const f of frame.faces) {
        const d = Math.hypot(f.cx - near.cx, f.cy - near.cy);
        if (d <= maxJump && f.mouthOpen !== undefined) pairs.push({ tr, f, d });
      }
    }
    pairs.sort((a, b) => a.d - b.d);
    const used = new Set<FaceTrack | FaceObs>();
    for (const p of pairs) {
      if (used.has(p.tr) || used.has(p.f)) continue;
      (p.tr.lip ??= []).push({ t: frame.t, mouthOpen: p.f.mouthOpen! });
      used.add(p.tr).add(p.f);
    }
  }
}

/** Mouth motion in a time window: mean absolute change of mouth opening between samples. */
export function mouthActivity(track: FaceTrack, from: number, to: number): number | undefined {
  const xs = track.obs.filter((o) => o.t >= from && o.t < to && o.mouthOpen !== undefined).map((o) => o.mouthOpen!);
  if (xs.length < 2) return undefined;
  let sum = 0;
  for (let i = 1; i < xs.length; i++) sum += Math.abs(xs[i]! - xs[i - 1]!);
  // Standard deviation as well: sampling at a few fps can alias the frame-to-frame change.
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length);
  return sum / (xs.length - 1) + sd;
}

/** Two regions this close (share of their side) hold the same face: the surer one is kept. */
const SAME_FACE = 0.25;

/** Two regions hold the same face: their centres are close for their size. */
export function sameFace(a: FaceRegion, b: FaceRegion): boolean {
  return Math.hypot(a.cx - b.cx, a.cy - b.cy) < SAME_FACE * Math.min(a.side, b.side);
}

/**
 * Where to read faces on a frame with a detector pass: each carried region (from the last frame),
 * and each detected face that none of them holds. A followed face keeps its carried region rather
 * than switching to the detector's box, which sits a little differently on the face: switching at
 * every pass would jitter the landmarks, and the mouth reading with them, of a face that does not
 * move at all. Only when the face has grown or shrunk (sides more than 25% apart) does the
 * detector's region replace the carried one.
 */
export function regionsToRead<R extends FaceRegion>(detected: R[], carried: R[]): R[] {
  const resized = (c: R, d: R) => Math.abs(Math.log(c.side / d.side)) > Math.log(1.25);
  const kept = carried.map((c) => {
    const d = detected.find((x) => sameFace(c, x));
    return d && resized(c, d) ? d : c;
  });
  return [...kept, ...detected.filter((d) => !carried.some((c) => sameFace(c, d)))];
}

/** The faces that are not the same face as a surer one (two followed regions can converge on one face). */
export function distinctFaces<F extends { score: number; next: FaceRegion }>(faces: F[]): F[] {
  const kept: F[] = [];
  for (const f of [...faces].sort((a, b) => b.score - a.score)) {
    if (!kept.some((k) => sameFace(k.next, f.next))) kept.push(f);
  }
  return kept;
}

export interface SpeakerFaces {
  /** speaker label -> track id */
  bySpeaker: Map<string, number>;
  /** Per assigned speaker: the face's score (assignSpeakers) for them, capped at 1. */
  confidence: Map<string, number>;
}

/**
 * Seconds left out at each end of a turn when measuring mouth motion in it: diarized boundaries
 * are a few hundred milliseconds off, and one sample of the next speaker's mouth starting to move
 * inside the turn would count as the largest motion of the whole turn.
 */
export const TURN_EDGE_SECONDS = 0.3;

/**
 * Ties each speaker to one face track. With the audio's envelope (`speech`), a face's score for a
 * speaker is how well its mouth follows the voice in that speaker's turns (lipSync) minus how well
 * it follows the others' voices: a listener who moves their mouth out of time with the speaker
 * scores nothing, however much they move. Without audio there is no voice to follow, and the score
 * is how much more the face's mouth moves in the speaker's turns than in others', normalised.
 * Turns are read TURN_EDGE_SECONDS in from each end. Assigns greedily by score, one track per
 * speaker; a speaker with no positive score stays unassigned.
 */
export function assignSpeakers(tracks: FaceTrack[], turns: Turn[], speech?: SpeechEnvelope): SpeakerFaces {
  const speakers = [...new Set(turns.map((t) => t.speaker))];
  const activityIn = (tr: FaceTrack, pred: (t: Turn) => boolean) => {
    const vals = turns
      .filter(pred)
      .map((t) => mouthActivity(tr, t.start + TURN_EDGE_SECONDS, t.end - TURN_EDGE_SECONDS))
      .filter((v): v is number => v !== undefined);
    return vals.length ? vals.reduce((a, b) => a + b, 0) / vals.length : undefined;
  };
  const syncIn = (tr: FaceTrack, pred: (t: Turn) => boolean) => lipSync(tr, speech!, turnInteriors(turns.filter(pred), TURN_EDGE_SECONDS));
  const scores: { speaker: string; track: number; score: number }[] = [];
  for (const s of speakers) {
    for (const tr of tracks) {
      let score: number;
      if (speech) {
        const own = syncIn(tr, (t) => t.speaker === s);
        if (own === undefined) continue;
        // A face that follows every voice alike (a mouth reading that tracks loudness through
        // lighting or compression) is no one's in particular.
        score = own - (syncIn(tr, (t) => t.speaker !== s) ?? 0);
      } else {
        const own = activityIn(tr, (t) => t.speaker === s);
        if (own === undefined) continue;
        const others = activityIn(tr, (t) => t.speaker !== s);
        // With one speaker only, the face that moves its mouth at all is theirs.
        score = others === undefined ? own : (own - others) / (own + others + 1e-6);
      }
      scores.push({ speaker: s, track: tr.id, score });
    }
  }
  scores.sort((a, b) => b.score - a.score);
  const bySpeaker = new Map<string, number>();
  const confidence = new Map<string, number>();
  const usedTracks = new Set<number>();
  for (const sc of scores) {
    if (sc.score <= 0 || bySpeaker.has(sc.speaker) || usedTracks.has(sc.track)) continue;
    bySpeaker.set(sc.speaker, sc.track);
    confidence.set(sc.speaker, Math.min(1, sc.score));
    usedTracks.add(sc.track);
  }
  return { bySpeaker, confidence };
}

/** Turns (speaker spans) from diarized words: consecutive words of one speaker merge. */
export function turnsFromWords(words: { speaker: string; start: number; end: number }[], maxGap = 1.0): Turn[] {
  const out: Turn[] = [];
  for (const w of words) {
    const last = out[out.length - 1];
    if (last && last.speaker === w.speaker && w.start - last.end <= maxGap) last.end = w.end;
    else out.push({ speaker: w.speaker, start: w.start, end: w.end });
  }
  return out;
}

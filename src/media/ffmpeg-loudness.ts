/**
 * Loudness: the EBU R128 meter, the gain/limiter filter that brings a window to the delivery
 * target, and the measure-encode-check loop that delivers it.
 */
import { rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ffmpeg, mediaInput } from "./ffmpeg.ts";
import { log } from "../log.ts";

export interface LoudnessTarget {
  /** Integrated loudness, LUFS. */
  i: number;
  /** Accepted deviation from i, LU. */
  tolerance: number;
  /** Maximum true peak of the delivered (encoded) audio, dBTP. */
  tp: number;
}

/** Clips are delivered at -14 LUFS integrated (+-0.5 LU) and at most -1 dBTP. */
export const CLIP_LOUDNESS: LoudnessTarget = { i: -14, tolerance: 0.5, tp: -1 };

export interface Window {
  start?: number;
  duration?: number;
}

function windowArgs(w: Window): string[] {
  const a: string[] = [];
  if (w.start !== undefined) a.push("-ss", w.start.toFixed(3));
  if (w.duration !== undefined) a.push("-t", w.duration.toFixed(3));
  return a;
}

const dbToAmplitude = (db: number) => 10 ** (db / 20);

/** Output arguments of the band-limited window's intermediate file: float WAV, no requantising. */
const FLOAT_WAV = ["-c:a", "pcm_f32le", "-f", "wav"];

/**
 * EBU R128's absolute gate: blocks quieter than this are not counted, and ffmpeg's meter reports a
 * window with nothing above it (digital silence included) as exactly this figure, not -inf.
 */
export const ABSOLUTE_GATE_LUFS = -70;

/** A window with no loudness to normalise: silent, or nothing but a noise floor under the gate. */
export function isSilent(integratedLufs: number): boolean {
  return !Number.isFinite(integratedLufs) || integratedLufs <= ABSOLUTE_GATE_LUFS;
}

/**
 * Band-limiting applied once per window, before any level pass: rumble and the top octave carry no
 * speech but do carry peaks (and AAC overshoot).
 */
export function bandFilter(): string {
  return ["aresample=48000", "highpass=f=70", "lowpass=f=12000"].join(",");
}

/**
 * Gain (dB) then a look-ahead sample-peak limiter at ceilingDb whose delay is compensated
 * (latency=1) so audio stays in sync with video.
 */
export function levelFilter(gainDb: number, ceilingDb: number): string {
  return [
    `volume=${gainDb.toFixed(2)}dB`,
    `alimiter=limit=${dbToAmplitude(ceilingDb).toFixed(4)}:attack=3:release=40:level=0:latency=1`,
  ].join(",");
}

export interface AudioEncoding {
  bitrateKbps: number;
  channels: 1 | 2;
}

/** Gain and limiter ceiling for one band-limited window, and the level filter that applies them. */
export interface LoudnessPlan {
  gainDb: number;
  ceilingDb: number;
  filter: string;
  /** Loudness of the planned chain's PCM output (true peak is checked on the delivered AAC instead). */
  integrated: number;
  passes: number;
}

/**
 * Plans normalisation of a band-limited window (the file `input`), whose loudness is `measured`. Speech
 * is peaky (a 15 dB peak-to-loudness ratio is common), so reaching -14 LUFS needs limiting, and
 * limiting lowers loudness by an amount that depends on the material: each pass runs the gain +
 * limiter chain straight into the meter (one ffmpeg, no file) and corrects the gain by a secant
 * step until the PCM is within half the tolerance. The limiter ceiling starts 1 dB under the
 * true-peak limit: headroom for AAC overshoot.
 */
export async function planLoudness(input: string, measured: number, target: LoudnessTarget = CLIP_LOUDNESS, ceilingDb = target.tp - 1): Promise<LoudnessPlan> {
  if (isSilent(measured)) throw new Error(`no measurable loudness in ${input} (silent window?)`);
  let gain = target.i - measured;
  let prev: { gain: number; i: number } | undefined;
  let last: LoudnessPlan | undefined;
  for (let pass = 1; pass <= 6; pass++) {
    const filter = levelFilter(gain, ceilingDb);
    // Only loudness steers the gain; the true peak that matters is the encoded one, which
    // normalizeAudio measures anyway (4x oversampling here would cost a third of each pass).
    const got = await meterEbur128(input, { preFilter: filter, truePeak: false });
    last = { gainDb: gain, ceilingDb, filter, integrated: got.integrated, passes: pass };
    if (Math.abs(got.integrated - target.i) <= target.tolerance / 2) return last;
    const slope = prev && Math.abs(gain - prev.gain) > 0.05 ? (got.integrated - prev.i) / (gain - prev.gain) : 1;
    prev = { gain, i: got.integrated };
    gain += (target.i - got.integrated) / Math.min(1, Math.max(0.25, slope));
  }
  log.warn("loudness plan did not converge", { input, integrated: last!.integrated });
  return last!;
}

/** What the next plan aims the PCM at: its loudness and the limiter's ceiling. */
export interface PlanAim {
  i: number;
  ceilingDb: number;
}

/**
 * After delivery: undefined when the encoded audio is in spec, else where to aim the PCM next. The
 * encoder shifts loudness (a low-bitrate AAC's lowpass takes treble the K-weighting counts) and
 * overshoots true peak, so the PCM aims at the target less that shift, under a ceiling lowered by
 * the overshoot. The caller plans again to that aim (planLoudness follows the limiter's real slope)
 * rather than adding the miss to the gain: with the limiter working, extra gain mostly hits the
 * ceiling and barely moves the loudness.
 */
export function reaim(plan: LoudnessPlan, delivered: Ebur128Summary, target: LoudnessTarget = CLIP_LOUDNESS): PlanAim | undefined {
  const iOk = Math.abs(delivered.integrated - target.i) <= target.tolerance;
  const tpOk = delivered.truePeak <= target.tp;
  if (iOk && tpOk) return undefined;
  return {
    i: target.i - (delivered.integrated - plan.integrated),
    ceilingDb: plan.ceilingDb - (tpOk ? 0 : delivered.truePeak - target.tp + 0.2),
  };
}

export interface NormalizedAudio {
  path: string;
  filter: string;
  integrated: number;
  truePeak: number;
  passes: number;
}

export interface NormalizeOptions {
  target?: LoudnessTarget;
  preFilter?: string;
}

/**
 * Normalises one window to the target and writes it as AAC 48 kHz, checked as encoded. The window
 * is decoded and band-limited once, into a float WAV beside `out` (metered on the way: the plan's
 * starting point); the plan's level passes, the encode and any correction read that file rather
 * than decoding and filtering the source again each time. Plan on PCM, encode, meter the AAC,
 * correct and re-encode while out of spec (rarely more than once).
 */
export async function normalizeAudio(input: string, window: Window, out: string, enc: AudioEncoding, o: NormalizeOptions = {}): Promise<NormalizedAudio> {
  const target = o.target ?? CLIP_LOUDNESS;
  const band = join(dirname(out), `.${basename(out)}.band.wav`);
  const bandChain = [o.preFilter, bandFilter()].filter(Boolean).join(",");
  try {
    const measured = (await meterEbur128(input, { window, preFilter: bandChain, truePeak: false, output: band })).integrated;
    let plan = await planLoudness(band, measured, target);
    let passes = plan.passes;
    let got: Ebur128Summary | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      await ffmpeg([
        "-y", ...mediaInput(band), "-af", plan.filter,
        "-c:a", "aac", "-b:a", `${enc.bitrateKbps}k`, "-ar", "48000", "-ac", String(enc.channels), "-f", "mp4", out,
      ]);
      got = await meterEbur128(out);
      const aim = reaim(plan, got, target);
      if (!aim) return { path: out, filter: plan.filter, integrated: got.integrated, truePeak: got.truePeak, passes };
      plan = await planLoudness(band, measured, { ...target, i: aim.i }, aim.ceilingDb);
      passes += plan.passes;
    }
    throw new Error(`loudness out of spec after corrections: ${got?.integrated} LUFS, ${got?.truePeak} dBTP`);
  } finally {
    await rm(band, { force: true });
  }
}

export interface Ebur128Summary {
  integrated: number;
  truePeak: number;
  lra: number;
}

/**
 * EBU R128 meter (ffmpeg's ebur128 filter, true peak optional). framelog=verbose keeps the
 * per-100 ms lines out of the captured stderr; the summary still prints. The meter passes audio
 * through: with `output`, the metered (pre-filtered) audio is also written there as float WAV.
 */
export async function meterEbur128(input: string, o: { window?: Window; preFilter?: string; truePeak?: boolean; output?: string } = {}): Promise<Ebur128Summary> {
  const meter = `ebur128=framelog=verbose${o.truePeak === false ? "" : ":peak=true"}`;
  const af = [o.preFilter, meter].filter(Boolean).join(",");
  const sink = o.output ? [...FLOAT_WAV, o.output] : ["-f", "null", "-"];
  const { stderr } = await ffmpeg([...(o.output ? ["-y"] : []), ...windowArgs(o.window ?? {}), ...mediaInput(input), "-vn", "-sn", "-af", af, ...sink]);
  const summary = stderr.slice(stderr.lastIndexOf("Summary:"));
  const pick = (re: RegExp) => {
    const m = summary.match(re);
    if (!m) throw new Error(`ebur128 summary lacks ${re}`);
    return Number(m[1]);
  };
  return {
    integrated: pick(/I:\s+(-?[\d.]+|-inf) LUFS/),
    truePeak: o.truePeak === false ? NaN : pick(/Peak:\s+(-?[\d.]+|-inf) dBFS/),
    lra: pick(/LRA:\s+(-?[\d.]+) LU/),
  };
}

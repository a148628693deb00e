/**
 * Loudness: the EBU R128 meter, the gain/limiter filter that brings a window to the delivery
 * target, and the measure-encode-check loop that delivers it.
 */
import { ffmpeg } from "./ffmpeg.ts";
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

/**
 * Gain (dB) then a look-ahead sample-peak limiter at ceilingDb whose delay is compensated
 * (latency=1) so audio stays in sync with video.
 */
export function gainFilter(gainDb: number, ceilingDb: number): string {
  return [
    "aresample=48000",
    // Rumble and the top octave carry no speech but do carry peaks (and AAC overshoot).
    "highpass=f=70",
    "lowpass=f=12000",
    `volume=${gainDb.toFixed(2)}dB`,
    `alimiter=limit=${dbToAmplitude(ceilingDb).toFixed(4)}:attack=3:release=40:level=0:latency=1`,
  ].join(",");
}

export interface AudioEncoding {
  bitrateKbps: number;
  channels: 1 | 2;
}

export interface NormalizedAudio {
  path: string;
  filter: string;
  integrated: number;
  truePeak: number;
  passes: number;
}

/**
 * Normalises one window of a source to the target and writes it as AAC 48 kHz. Speech is peaky (a
 * 15 dB peak-to-loudness ratio is common), so reaching -14 LUFS needs limiting, which lowers the
 * loudness; and AAC adds true-peak overshoot, more at low bitrates. So the loop measures what is
 * actually delivered, the encoded AAC, and corrects gain (secant steps) and limiter ceiling until
 * both are in spec. The video encode then copies this audio, so what was checked is what ships.
 */
export async function normalizeAudio(
  input: string,
  window: Window,
  out: string,
  enc: AudioEncoding,
  target: LoudnessTarget = CLIP_LOUDNESS,
  preFilter?: string,
): Promise<NormalizedAudio> {
  const pre = (f: string) => [preFilter, f].filter(Boolean).join(",");
  const m = await meterEbur128(input, { window, preFilter, truePeak: false });
  if (!Number.isFinite(m.integrated)) throw new Error(`no measurable loudness in ${input} (silent window?)`);
  let gain = target.i - m.integrated;
  let ceiling = target.tp - 1;
  let prev: { gain: number; i: number } | undefined;
  let best: NormalizedAudio | undefined;
  for (let pass = 1; pass <= 8; pass++) {
    const filter = pre(gainFilter(gain, ceiling));
    await ffmpeg([
      "-y", ...windowArgs(window), "-i", input, "-vn", "-sn", "-af", filter,
      "-c:a", "aac", "-b:a", `${enc.bitrateKbps}k`, "-ar", "48000", "-ac", String(enc.channels), "-f", "mp4", out,
    ]);
    const got = await meterEbur128(out);
    const result = { path: out, filter, integrated: got.integrated, truePeak: got.truePeak, passes: pass };
    const iOk = Math.abs(got.integrated - target.i) <= target.tolerance;
    const tpOk = got.truePeak <= target.tp;
    if (iOk && tpOk) return result;
    const miss = (r: NormalizedAudio) => Math.abs(r.integrated - target.i) + Math.max(0, r.truePeak - target.tp) * 2;
    if (!best || miss(result) < miss(best)) best = result;
    const slope = prev && Math.abs(gain - prev.gain) > 0.05 ? (got.integrated - prev.i) / (gain - prev.gain) : 1;
    prev = { gain, i: got.integrated };
    if (!iOk) gain += (target.i - got.integrated) / Math.min(1, Math.max(0.25, slope));
    if (!tpOk) ceiling -= got.truePeak - target.tp + 0.2;
  }
  // Out of passes: re-encode the closest attempt (the file holds the last one) and say so.
  const b = best!;
  await ffmpeg(["-y", ...windowArgs(window), "-i", input, "-vn", "-sn", "-af", b.filter,
    "-c:a", "aac", "-b:a", `${enc.bitrateKbps}k`, "-ar", "48000", "-ac", String(enc.channels), "-f", "mp4", out]);
  log.warn("loudness did not converge", { input, integrated: b.integrated, truePeak: b.truePeak });
  return b;
}

export interface Ebur128Summary {
  integrated: number;
  truePeak: number;
  lra: number;
}

/**
 * EBU R128 meter (ffmpeg's ebur128 filter, true peak optional). framelog=verbose keeps the
 * per-100 ms lines out of the captured stderr; the summary still prints.
 */
export async function meterEbur128(input: string, o: { window?: Window; preFilter?: string; truePeak?: boolean } = {}): Promise<Ebur128Summary> {
  const meter = `ebur128=framelog=verbose${o.truePeak === false ? "" : ":peak=true"}`;
  const af = [o.preFilter, meter].filter(Boolean).join(",");
  const { stderr } = await ffmpeg([...windowArgs(o.window ?? {}), "-i", input, "-vn", "-sn", "-af", af, "-f", "null", "-"]);
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

/**
 * Audiogram framing for audio-only sources: a coloured card with the show title, the name of the
 * speaker talking right now, the clip's waveform lit as it plays and the burned-in captions.
 * Pure filter-graph construction; render.ts runs it.
 */
import { captionChangeFrames, captionMargins, changeFrames, type CaptionFrame } from "./captions.ts";
import { assFilter } from "./graph.ts";
import { BAR_PITCH, barCount, barRect, barSpan, invertColour, mixColour, waveformHeights } from "./waveform.ts";
import type { Pcm } from "../../media/wav.ts";
import { logoOverlay, type BrandLook } from "./brand.ts";

export interface SpeakerSpan {
  start: number;
  end: number;
  name: string;
}

export interface AudiogramCard {
  title: string;
  /** Who speaks when, in source seconds; the matching name is shown while they talk. */
  speakers?: SpeakerSpan[];
  /** Background and waveform colours as 0xRRGGBB. */
  background?: string;
  accent?: string;
}

/** Bars not yet played are the accent colour this far towards the background. */
const UNLIT_FADE = 0.6;

/** drawtext text inside a single-quoted filter option: no quotes or backslashes survive unescaped. */
export function drawtextSafe(text: string): string {
  return text.replace(/\\/g, "").replace(/'/g, "\u2019").replace(/[\r\n]+/g, " ").replace(/:/g, "\\:");
}

export interface AudiogramFilterOptions {
  frame: CaptionFrame;
  card?: AudiogramCard;
  /** Source time of the clip start: speaker spans are shifted by it. */
  clipStart?: number;
  fps: number;
  /** Clip length in seconds. */
  duration: number;
  /** The clip's audio (any rate, mono): the waveform's bars are its loudness envelope. */
  audio: Pcm;
  assPath: string;
  /** The ASS script's event spans (assEventSpans): captions are drawn only on frames where they change. */
  captionSpans: Array<[number, number]>;
  /** Draw the held rows on every frame instead (the reference the held output must equal). */
  everyFrame?: boolean;
  /** Font directory for the captions and the bold font file for title and name. */
  fontsDir: string;
  boldFont: string;
  suffix: string;
  /** A brand with a logo, and the ffmpeg input holding it ("1:v"): laid on the head (top corners) or the caption band (bottom corners). */
  logo?: { look: BrandLook; input: string };
}

/**
 * A sum of ffmpeg expression terms. ffmpeg's parser refuses a flat sum of more than 100 terms, so
 * long ones are nested in parenthesised groups of at most 50.
 */
export function anyOf(terms: string[]): string {
  if (terms.length <= 50) return terms.join("+");
  const groups: string[] = [];
  for (let i = 0; i < terms.length; i += 50) groups.push(`(${terms.slice(i, i + 50).join("+")})`);
  return anyOf(groups);
}

/** ffmpeg refuses filter options near 64 KiB (measured on 5.1: 54.6k characters parse, 66.7k do not). */
const MAX_EXPRESSION_CHARS = 50_000;

/**
 * A select filter passing just these frame numbers, or undefined when the list is too long for one
 * ffmpeg expression (a caption track of many minutes): the caller then draws every frame.
 */
export function selectFrames(frames: number[]): string | undefined {
  const expr = anyOf(frames.map((n) => `eq(n,${n})`));
  return expr.length <= MAX_EXPRESSION_CHARS ? `select='${expr}'` : undefined;
}

/**
 * Filter graph to [vout], with no input: the waveform is drawn from `audio`, decoded beforehand.
 *
 * The frame is three stacked rows, so that only what changes is drawn. The head (title, accent rule)
 * and the speaker's name are drawn on the frames where the name changes and held. The waveform row
 * changes only when another bar lights. The caption band, from under the waveform to the frame's
 * foot, is plain card colour on which libass draws only on the frames where the captions change
 * (about three a second, against 25), held until the next change. Blending outlined, shadowed
 * captions into every frame was the largest cost of an audiogram after the encoder; the pictures are
 * the same pixels either way.
 */
export function audiogramFilter(o: AudiogramFilterOptions): string {
  const { width: W, height: H } = o.frame;
  const vertical = H > W;
  const bg = o.card?.background ?? "0x1b2a41";
  const accent = o.card?.accent ?? "0x7fdbca";
  const margins = captionMargins(o.frame);
  // The waveform spans 84% of the width, as many whole bars as fit, centred.
  const barsAcross = barCount(W * 0.84);
  const waveW = barSpan(barsAcross);
  const waveH = Math.round(H * (vertical ? 0.07 : 0.1) / 2) * 2;
  const waveY = Math.round(H * (vertical ? 0.42 : 0.45) / 2) * 2;
  const bandY = waveY + waveH;
  const unit = Math.min(W, H);
  // Long titles shrink to fit between the margins (bold DejaVu averages ~0.62 em per character).
  const titleChars = Math.max(1, o.card?.title.length ?? 1);
  const titleSize = Math.round(Math.min(unit * 0.05, (W - margins.left - margins.right) / (titleChars * 0.62)));
  const nameSize = Math.round(unit * 0.075);
  const offset = o.clipStart ?? 0;
  const waveX = Math.round((W - waveW) / 4) * 2;
  const frameCount = Math.ceil(o.duration * o.fps);
  /** A still of card colour for the whole clip, drawn on at the given frames only and held between. */
  const held = (height: number, frames: number[]) =>
    `color=c=${bg}:s=${W}x${height}:r=${o.fps}:d=${o.duration.toFixed(3)},format=yuv420p,${(!o.everyFrame && selectFrames(frames)) || "null"}`;

  const byName = new Map<string, SpeakerSpan[]>();
  for (const s of o.card?.speakers ?? []) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  // Speaker names are shown while between(t, start, end) holds, with the bounds as written in the
  // filter (two decimals); the head is redrawn on the frames where that changes for any name.
  const twoDecimals = (x: number) => Number(x.toFixed(2));
  const nameBounds = [...byName].map(([name, spans]) => ({
    name,
    bounds: spans.map((s) => [twoDecimals(s.start - offset), twoDecimals(s.end - offset)] as const),
  }));
  const headFrames = changeFrames(frameCount, (n) => {
    const t = n * (1 / o.fps);
    return nameBounds.map(({ bounds }) => (bounds.some(([a, b]) => t >= a && t <= b) ? "1" : "0")).join("");
  });

  // Head: a thin accent rule under the title, so the card reads as a designed frame, not a blank.
  const head = [
    held(waveY, headFrames),
    `drawbox=x=${margins.left}:y=${Math.round(H * 0.12 + titleSize * 1.6)}:w=${W - margins.left - margins.right}:h=${Math.max(2, Math.round(unit * 0.006))}:color=${accent}:t=fill`,
  ];
  if (o.card?.title) {
    head.push(`drawtext=fontfile='${o.boldFont}':expansion=none:text='${drawtextSafe(o.card.title)}':fontsize=${titleSize}:fontcolor=white:x=(w-text_w)/2:y=${Math.round(H * 0.12)}`);
  }
  for (const { name, bounds } of nameBounds) {
    const enable = anyOf(bounds.map(([a, b]) => `between(t,${a.toFixed(2)},${b.toFixed(2)})`));
    head.push(`drawtext=fontfile='${o.boldFont}':expansion=none:text='${drawtextSafe(name)}':fontsize=${nameSize}:fontcolor=${accent}:x=(w-text_w)/2:y=${Math.round(waveY - nameSize * 2.4)}:enable='${enable}'`);
  }
  // The logo is laid on the held rows before they are repeated, so it is blended on the few frames
  // drawn, not on all 25 a second: at the top on the head, at the bottom on the caption band, under
  // the captions (both rows are tall enough for the largest logo, a quarter of the frame).
  const logo = o.logo?.look.logo ? o.logo : undefined;
  const logoAtTop = logo?.look.logo_position.startsWith("top");
  const headChain = logo && logoAtTop
    ? `${head.join(",")}[headraw];${logoOverlay(o.frame, logo.look, logo.input, "headraw", "headlogo")};[headlogo]fps=${o.fps}`
    : `${[...head, `fps=${o.fps}`].join(",")}`;

  // Waveform row: the clip's loudness envelope as bars, lit from left to right as the clip plays.
  // The row is unlit-bar colour under a plain lit-colour sheet that slides in a bar at a time (and a
  // white one-bar sheet at its edge: the bar playing now), seen through a stencil of card colour
  // with the bars cut out (drawn once). Composing it costs little (three small overlays a frame);
  // what matters is that its pixels change only when a bar lights, a few times a second, so the
  // encoder has nothing to code between those frames but the captions.
  const bars = waveformHeights(o.audio, barsAcross).map((h, i) => barRect(i, h, waveH));
  /** Index of the bar playing at time t; both sheets follow the same expression. */
  const playing = `floor(t*${(bars.length / o.duration).toPrecision(12)})`;
  const key = invertColour(bg);
  const oneFrame = `r=${o.fps},trim=end_frame=1`;
  const row = [
    `color=c=${bg}:s=${waveW}x${waveH}:${oneFrame},format=rgba,` +
      bars.map((b) => `drawbox=x=${b.x}:y=${b.y}:w=${b.w}:h=${b.h}:color=${key}:t=fill`).join(",") +
      `,colorkey=${key}:0.01:0[stencil]`,
    `color=c=${mixColour(accent, bg, UNLIT_FADE)}:s=${waveW}x${waveH}:r=${o.fps}:d=${o.duration.toFixed(3)},format=yuv420p[unlit]`,
    `color=c=${accent}:s=${waveW}x${waveH}:${oneFrame},format=yuv420p[lit]`,
    `color=c=white:s=${BAR_PITCH}x${waveH}:${oneFrame},format=yuv420p[playhead]`,
    `[unlit][lit]overlay=x='${BAR_PITCH}*(${playing}+1)-${waveW}':y=0:eval=frame[progress]`,
    `[progress][playhead]overlay=x='${BAR_PITCH}*${playing}':y=0:eval=frame[playing]`,
    `[playing][stencil]overlay=format=yuv420,pad=${W}:${waveH}:${waveX}:0:color=${bg}[row]`,
  ];

  const bandHeld = held(H, captionChangeFrames(o.captionSpans, o.fps, frameCount));
  const bandTail = `${assFilter(o.assPath, o.fontsDir)},crop=${W}:${H - bandY}:0:${bandY},fps=${o.fps}[band]`;
  const band = logo && !logoAtTop
    ? `${bandHeld}[bandraw];${logoOverlay(o.frame, logo.look, logo.input, "bandraw", "bandlogo")};[bandlogo]${bandTail}`
    : `${bandHeld},${bandTail}`;

  return `${headChain}[head];${row.join(";")};${band};[head][row][band]vstack=inputs=3:shortest=1,setsar=1${o.suffix}[vout]`;
}

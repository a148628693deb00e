/**
 * The audiogram's waveform: the clip's loudness envelope as a row of bars, drawn once for the whole
 * clip and lit from left to right as it plays (a voice-note style progress waveform). Pure logic;
 * audiogram.ts turns the bars into a filter graph.
 */
import type { Pcm } from "../../media/wav.ts";

/**
 * Dynamic range the bars show, in dB under the clip's loud level: a syllable at that level fills
 * its bar, a pause 30 dB under it is a dot.
 */
export const WAVEFORM_RANGE_DB = 30;
/** Shortest bar, as a share of the full height: a pause still reads as part of the line. */
export const WAVEFORM_MIN_HEIGHT = 0.06;
/**
 * The clip's loud level is this percentile of its bars' levels, not the loudest bar: one shout
 * then does not shrink everything else, and a clip's bars look alike at any recording level.
 */
const LOUD_PERCENTILE = 0.98;

/**
 * Heights grow with the square of the level's share of the range: on a straight dB scale most bars
 * of continuous speech sit within a few dB of the top and the row reads as a solid block.
 */
const HEIGHT_CURVE = 2;

/** Horizontal rhythm of the bars, in output pixels. */
export const BAR_WIDTH = 4;
export const BAR_PITCH = 6;

/** How many bars fit a row `width` pixels wide (the last bar needs no gap after it). */
export function barCount(width: number): number {
  return Math.max(1, Math.floor((width - BAR_WIDTH) / BAR_PITCH) + 1);
}

/** Width in pixels of `count` bars side by side. */
export function barSpan(count: number): number {
  return (count - 1) * BAR_PITCH + BAR_WIDTH;
}

/**
 * Heights (WAVEFORM_MIN_HEIGHT..1) of `count` bars spread evenly over the samples: each bar's RMS
 * level in dB, placed on a WAVEFORM_RANGE_DB scale that ends at the clip's loud level, curved by
 * HEIGHT_CURVE. Relative to the clip itself, so the same speech recorded 20 dB quieter draws the
 * same bars; silence draws every bar at the minimum.
 */
export function waveformHeights(pcm: Pcm, count: number): number[] {
  const { samples } = pcm;
  const levels: number[] = [];
  for (let i = 0; i < count; i++) {
    const a = Math.floor((i * samples.length) / count);
    const b = Math.max(a + 1, Math.floor(((i + 1) * samples.length) / count));
    let sum = 0;
    for (let j = a; j < b && j < samples.length; j++) sum += samples[j]! * samples[j]!;
    const meanSquare = sum / (b - a);
    levels.push(meanSquare > 0 ? 10 * Math.log10(meanSquare) : -Infinity);
  }
  const audible = levels.filter(Number.isFinite).sort((x, y) => x - y);
  if (audible.length === 0) return levels.map(() => WAVEFORM_MIN_HEIGHT);
  const loud = audible[Math.min(audible.length - 1, Math.floor(LOUD_PERCENTILE * audible.length))]!;
  return levels.map((db) => {
    // -Infinity (digital silence) clamps to a share of 0.
    const share = Math.min(1, Math.max(0, (db - (loud - WAVEFORM_RANGE_DB)) / WAVEFORM_RANGE_DB));
    return Math.max(WAVEFORM_MIN_HEIGHT, share ** HEIGHT_CURVE);
  });
}

/**
 * A bar's rectangle in a row `rowHeight` (even) pixels tall: centred, with even position and size so
 * that 4:2:0 chroma does not bleed its colour into the gaps.
 */
export function barRect(index: number, heightShare: number, rowHeight: number): { x: number; y: number; w: number; h: number } {
  const margin = Math.min(Math.floor((rowHeight - 2) / 4), Math.max(0, Math.round(((1 - heightShare) * rowHeight) / 4)));
  return { x: index * BAR_PITCH, y: margin * 2, w: BAR_WIDTH, h: rowHeight - margin * 4 };
}

const parseColour = (c: string) => Number.parseInt(c.replace(/^0x|^#/, ""), 16);
const formatColour = (rgb: number) => `0x${rgb.toString(16).padStart(6, "0")}`;

/** 0xRRGGBB of `a` mixed with `b`, `share` of the way to b. */
export function mixColour(a: string, b: string, share: number): string {
  const ca = parseColour(a);
  const cb = parseColour(b);
  let out = 0;
  for (const shift of [16, 8, 0]) {
    const x = (ca >> shift) & 0xff;
    const y = (cb >> shift) & 0xff;
    out |= Math.round(x + (y - x) * share) << shift;
  }
  return formatColour(out);
}

/** The colour whose channels are the complement of `c`'s: never mistaken for it by a colour key. */
export function invertColour(c: string): string {
  return formatColour(0xffffff ^ parseColour(c));
}

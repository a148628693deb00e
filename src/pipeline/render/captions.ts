/**
 * Burned-in captions: groups timed words into short on-screen chunks and writes them as an ASS
 * subtitle script for ffmpeg's libass filter. Pure logic only; rendering calls it with the output
 * frame size. The live renderer, the trailer and the sandbox fixtures all use this one module.
 */
import { attachesToPrevious } from "../highlights/sentences.ts";
import type { Word } from "../types.ts";

/** Caption style names accepted by the API's options.caption_style (validate with z.enum). */
export const CAPTION_STYLES = ["bold", "minimal", "karaoke", "boxed"] as const;
export type CaptionStyle = (typeof CAPTION_STYLES)[number];
export const DEFAULT_CAPTION_STYLE: CaptionStyle = "bold";

export interface CaptionChunk {
  words: Word[];
  start: number;
  end: number;
}

export interface ChunkOptions {
  minWords: number;
  maxWords: number;
  /** A chunk never grows past this many characters, so it fits on one or two lines. */
  maxChars: number;
  /** A pause longer than this starts a new chunk: captions follow the speech rhythm. */
  maxGapSeconds: number;
  /** How long the last chunk before a pause stays on screen after its last word. */
  holdSeconds: number;
}

export const DEFAULT_CHUNKING: ChunkOptions = { minWords: 2, maxWords: 4, maxChars: 22, maxGapSeconds: 0.6, holdSeconds: 0.4 };

const endsSentence = (w: string) => /[.!?]["')\]]*$/.test(w);
const endsClause = (w: string) => /[,;:]["')\]]*$/.test(w);

/**
 * Greedy grouping into chunks of minWords..maxWords. Breaks at sentence ends, speaker changes and
 * pauses; a clause comma breaks only once the chunk already has minWords, so chunks stay readable.
 * A chunk shorter than minWords happens only when a sentence or a turn leaves a single word.
 */
export function chunkWords(words: Word[], opts: Partial<ChunkOptions> = {}): CaptionChunk[] {
  const o = { ...DEFAULT_CHUNKING, ...opts };
  const chunks: CaptionChunk[] = [];
  let cur: Word[] = [];
  const flush = () => {
    if (cur.length) chunks.push({ words: cur, start: cur[0]!.start, end: cur[cur.length - 1]!.end });
    cur = [];
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const prev = cur[cur.length - 1];
    if (prev) {
      const chars = cur.reduce((n, x) => n + x.word.length + 1, 0) + w.word.length;
      const hardBreak = prev.speaker !== w.speaker || w.start - prev.end > o.maxGapSeconds || endsSentence(prev.word);
      const full = cur.length >= o.maxWords || (chars > o.maxChars && cur.length >= o.minWords);
      const softBreak = endsClause(prev.word) && cur.length >= o.minWords;
      if (hardBreak || full || softBreak) flush();
    }
    cur.push(w);
  }
  flush();
  // Keep each chunk on screen through short gaps so captions do not flicker between chunks.
  for (let i = 0; i < chunks.length; i++) {
    const next = chunks[i + 1];
    const held = chunks[i]!.end + o.holdSeconds;
    chunks[i]!.end = next ? Math.max(chunks[i]!.end, Math.min(held, next.start)) : held;
  }
  return chunks;
}

export interface CaptionFrame {
  width: number;
  height: number;
}

interface StyleSpec {
  font: string;
  /** Font size as a fraction of the frame's shorter side. */
  size: number;
  bold: boolean;
  uppercase: boolean;
  primary: string; // ASS &HAABBGGRR
  active: string;
  outline: string;
  back: string;
  borderStyle: 1 | 3; // 1 = outline + shadow, 3 = opaque box
  outlineWidth: number; // fraction of font size
  shadow: number;
  /** karaoke keeps already spoken words highlighted; the others highlight only the current word. */
  fillSpoken: boolean;
  /** Scale of the active word in percent (a small pop draws the eye). */
  activeScale: number;
}

/**
 * The presets. bold: large upper-case white with a thick outline, active word yellow and enlarged.
 * minimal: smaller sentence-case text with a thin outline, active word tinted. karaoke: words fill
 * in as they are spoken. boxed: white text on a dark translucent box, active word yellow.
 */
const STYLES: Record<CaptionStyle, StyleSpec> = {
  bold: { font: "DejaVu Sans", size: 0.075, bold: true, uppercase: true, primary: "&H00FFFFFF", active: "&H0000E1FF", outline: "&H00000000", back: "&H80000000", borderStyle: 1, outlineWidth: 0.09, shadow: 2, fillSpoken: false, activeScale: 112 },
  minimal: { font: "DejaVu Sans", size: 0.055, bold: false, uppercase: false, primary: "&H00F0F0F0", active: "&H00FFD27A", outline: "&H00202020", back: "&H00000000", borderStyle: 1, outlineWidth: 0.05, shadow: 0, fillSpoken: false, activeScale: 100 },
  karaoke: { font: "DejaVu Sans", size: 0.07, bold: true, uppercase: false, primary: "&H00B0B0B0", active: "&H0066FF66", outline: "&H00000000", back: "&H80000000", borderStyle: 1, outlineWidth: 0.08, shadow: 1, fillSpoken: true, activeScale: 100 },
  boxed: { font: "DejaVu Sans", size: 0.065, bold: true, uppercase: false, primary: "&H00FFFFFF", active: "&H0000E1FF", outline: "&H60000000", back: "&H60000000", borderStyle: 3, outlineWidth: 0.18, shadow: 0, fillSpoken: false, activeScale: 100 },
};

/** Where captions may sit: inside platform safe areas (vertical feeds cover the bottom ~20%). */
export function captionMargins(frame: CaptionFrame): { left: number; right: number; bottom: number } {
  const vertical = frame.height > frame.width;
  return {
    left: Math.round(frame.width * (vertical ? 0.08 : 0.1)),
    right: Math.round(frame.width * (vertical ? 0.08 : 0.1)),
    bottom: Math.round(frame.height * (vertical ? 0.24 : 0.09)),
  };
}

export function assTime(seconds: number): string {
  const cs = Math.max(0, Math.round(seconds * 100));
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  const c = cs % 100;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(c).padStart(2, "0")}`;
}

/** libass treats braces and backslashes as markup; captions show the words, never markup. */
function plain(text: string): string {
  return text.replace(/[{}\\]/g, "").replace(/\s+/g, " ").trim();
}

/**
 * The words heard in [offset, offset + duration): what a clip's captions are made of. A word the
 * recogniser gave no duration (start = end) belongs where it starts: one at a clip's first instant
 * is the clip's first word, as its transcript_text says.
 */
export function wordsInWindow(words: Word[], offset: number, duration: number): Word[] {
  return words.filter((w) => (w.end > offset || w.start >= offset) && w.start < offset + duration);
}

export interface CaptionCue {
  /** Seconds from the clip start. */
  start: number;
  end: number;
  text: string;
}

/**
 * The burned-in captions as plain cues (one per on-screen chunk, times relative to the clip), so a
 * clip's SRT/VTT sidecar shows exactly the words the video shows, when it shows them.
 */
export function captionCues(words: Word[], offset: number, duration: number, chunking?: Partial<ChunkOptions>): CaptionCue[] {
  return chunkWords(wordsInWindow(words, offset, duration), chunking)
    .map((c) => ({ start: Math.max(0, c.start - offset), end: Math.min(duration, c.end - offset), text: plain(c.words.map((w) => w.word).join(" ")) }))
    .filter((c) => c.end - c.start >= 0.01);
}

export interface AssOptions {
  frame: CaptionFrame;
  style?: CaptionStyle;
  /** Source time that becomes t=0 in the output (the clip start). */
  offset?: number;
  /** Output duration: events are clipped to [0, duration]. */
  duration?: number;
  chunking?: Partial<ChunkOptions>;
  /** Font family instead of the style's (a brand's caption_font, one the appliance ships). */
  font?: string;
}

/**
 * One ASS Dialogue event per (chunk, active word): the chunk's text with the word being spoken
 * highlighted, from that word's start until the next word's start (the last one until chunk end).
 */
export function buildAss(words: Word[], opts: AssOptions): string {
  const style = STYLES[opts.style ?? DEFAULT_CAPTION_STYLE];
  const { width, height } = opts.frame;
  const offset = opts.offset ?? 0;
  const duration = opts.duration ?? Infinity;
  const fontSize = Math.round(Math.min(width, height) * style.size);
  const m = captionMargins(opts.frame);
  const bold = style.bold ? -1 : 0;
  const outline = Math.max(1, Math.round(fontSize * style.outlineWidth));
  const header = [
    "[Script Info]",
    "ScriptType: v4.00+",
    `PlayResX: ${width}`,
    `PlayResY: ${height}`,
    "WrapStyle: 0",
    "ScaledBorderAndShadow: yes",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    `Style: Caption,${opts.font ?? style.font},${fontSize},${style.primary},${style.active},${style.outline},${style.back},${bold},0,0,0,100,100,0,0,${style.borderStyle},${outline},${style.shadow},2,${m.left},${m.right},${m.bottom},1`,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
  ];
  const events: string[] = [];
  for (const chunk of chunkWords(wordsInWindow(words, offset, duration), opts.chunking)) {
    const texts = chunk.words.map((w) => {
      const t = plain(w.word);
      return style.uppercase ? t.toUpperCase() : t;
    });
    chunk.words.forEach((w, i) => {
      const from = i === 0 ? chunk.start : w.start;
      const to = i + 1 < chunk.words.length ? chunk.words[i + 1]!.start : chunk.end;
      const start = Math.max(0, from - offset);
      const end = Math.min(duration, to - offset);
      if (end - start < 0.01) return;
      const text = texts
        .map((t, j) => {
          const lit = j === i || (style.fillSpoken && j < i);
          if (!lit) return t;
          const pop = j === i && style.activeScale !== 100 ? `\\fscx${style.activeScale}\\fscy${style.activeScale}` : "";
          return `{\\c${style.active}${pop}}${t}{\\r}`;
        })
        // Whisper's sub-word pieces ("3B" "-hives", "60" ",000") read as one word on screen too.
        .map((t, j) => (j > 0 && attachesToPrevious(texts[j]!, texts[j - 1]!) ? t : ` ${t}`))
        .join("")
        .trimStart();
      events.push(`Dialogue: 0,${assTime(start)},${assTime(end)},Caption,,0,0,0,,${text}`);
    });
  }
  return [...header, ...events, ""].join("\n");
}

/** Start and end in ms of each Dialogue event of an ASS script, as libass reads them (h:mm:ss.cc). */
export function assEventSpans(ass: string): Array<[number, number]> {
  const ms = (t: string) => {
    const [h, m, s, cs] = t.trim().split(/[:.]/).map(Number);
    return ((h! * 60 + m!) * 60 + s!) * 1000 + cs! * 10;
  };
  const spans: Array<[number, number]> = [];
  for (const line of ass.split("\n")) {
    const m = line.match(/^Dialogue:\s*[^,]*,([^,]+),([^,]+),/);
    if (m) spans.push([ms(m[1]!), ms(m[2]!)]);
  }
  return spans;
}

/**
 * The frames (numbered from 0 at `fps`) on which the captions differ from the frame before, plus
 * frame 0 and the last frame. libass shows an event on a frame when start <= now < end, where now
 * is the frame time in whole ms as ffmpeg's ass filter computes it (pts * time base * 1000,
 * truncated), so the same double arithmetic here gives exactly libass's decisions.
 */
export function captionChangeFrames(spans: Array<[number, number]>, fps: number, frameCount: number): number[] {
  const timeBase = 1 / fps;
  return changeFrames(frameCount, (n) => {
    const now = Math.trunc(n * timeBase * 1000);
    let key = "";
    for (let i = 0; i < spans.length; i++) if (now >= spans[i]![0] && now < spans[i]![1]) key += `${i},`;
    return key;
  });
}

/** Frame 0, the last frame, and every frame whose state differs from the frame before. */
export function changeFrames(frameCount: number, stateAt: (n: number) => string): number[] {
  const frames: number[] = [];
  let prev = "";
  for (let n = 0; n < frameCount; n++) {
    const key = stateAt(n);
    if (n === 0 || key !== prev || n === frameCount - 1) frames.push(n);
    prev = key;
  }
  return frames;
}

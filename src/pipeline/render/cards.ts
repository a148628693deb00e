/**
 * Intro and outro cards (the brand kit's `intro_card` / `outro_card`): a short still of the brand's
 * background colour with its text in the accent colour and caption font, and a picture letterboxed
 * over it, before and after every clip and trailer. The card is encoded at the clip's own frame
 * size, frame rate and time base with the clip's encoder settings, then joined to the clip's video
 * by stream copy, so a card costs a few frames of encoding, never a second encode of the clip. The
 * clip's (already loudness-normalised) audio gets the cards' lengths of silence around it and is
 * encoded once more; a card adds nothing to the programme loudness (silence is gated out).
 *
 * The join uses ffmpeg's concat demuxer on a list this module writes itself, naming only files it
 * has just written into the render's own scratch folder, by bare relative names (`-safe 1`), read
 * with the file protocol only. No list from outside is ever opened (the media whitelist refuses
 * concat lists as sources).
 */
import { writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { boldFontFor, ffmpeg, ffprobeJson, mediaInput } from "../../media/ffmpeg.ts";
import { imageInput } from "../../media/image.ts";
import type { videoEncoderArgs } from "../../media/ffmpeg-engine.ts";
import { CAPTION_FONTS, ffmpegColour, type BrandLook, type CardLook } from "./brand.ts";
import type { CaptionFrame } from "./captions.ts";
import { wrapTitle } from "./cover.ts";

/** The cards a render puts around its output; either may be absent. */
export interface ClipCards {
  intro?: CardLook;
  outro?: CardLook;
}

/** The brand's cards, or undefined when it has none (the render is then joined as before). */
export function cardsOf(look: BrandLook | undefined): ClipCards | undefined {
  if (!look?.intro_card && !look?.outro_card) return undefined;
  return { ...(look.intro_card ? { intro: look.intro_card } : {}), ...(look.outro_card ? { outro: look.outro_card } : {}) };
}

/** A frame rate as a fraction ("30000/1001"). */
export interface FrameRate {
  num: number;
  den: number;
}

export function parseRate(text: string | undefined): FrameRate | undefined {
  const [num, den] = (text ?? "").split("/").map(Number);
  return num && den && num > 0 && den > 0 ? { num, den } : undefined;
}

/** Whole frames a card of `seconds` lasts at `rate`: the nearest count, at least one. */
export function cardFrames(seconds: number, rate: FrameRate): number {
  return Math.max(1, Math.round((seconds * rate.num) / rate.den));
}

/** Seconds each card really lasts in the file (whole frames); 0 for a card not there. */
export interface CardTiming {
  intro: number;
  outro: number;
}

export function cardTiming(cards: ClipCards, rate: FrameRate): CardTiming {
  const secs = (c?: CardLook) => (c ? (cardFrames(c.seconds, rate) * rate.den) / rate.num : 0);
  return { intro: secs(cards.intro), outro: secs(cards.outro) };
}

/** The card's font size and the longest line it takes, for a frame. */
export function cardTextLayout(frame: CaptionFrame): { size: number; maxChars: number } {
  const size = Math.round(Math.min(frame.width, frame.height) * 0.075);
  return { size, maxChars: Math.max(8, Math.floor((frame.width * 0.84) / (size * 0.62))) };
}

export interface CardGraphOptions {
  frame: CaptionFrame;
  rate: FrameRate;
  background: string;
  accent: string;
  /** The bold font file the text is drawn with. */
  fontFile: string;
  /** One text file per line of the card's text (drawtext reads each as is: no expansion). */
  lineFiles: string[];
  /** Whether input 0 is the card's picture. */
  image: boolean;
  /** Pixel-format/upload tail the encoder needs (videoEncoderArgs). */
  suffix: string;
}

/**
 * The card's filter graph to [vout]: a colour source at the clip's size and rate, the picture (input
 * 0) scaled to fit inside the frame and centred (letterboxed on the background), and the text lines
 * centred: in the middle of the frame alone, on a band of the background colour near the bottom
 * over a picture.
 */
export function cardGraph(o: CardGraphOptions): string {
  const { width: W, height: H } = o.frame;
  const { size } = cardTextLayout(o.frame);
  const lineH = Math.round(size * 1.3);
  const bg = ffmpegColour(o.background);
  const steps: string[] = [];
  let graph = `color=c=${bg}:s=${W}x${H}:r=${o.rate.num}/${o.rate.den}`;
  if (o.image) {
    graph += `[cardbg];[0:v]scale=${W}:${H}:force_original_aspect_ratio=decrease:flags=lanczos,format=yuva420p[cardimg];[cardbg][cardimg]overlay=x=(W-w)/2:y=(H-h)/2:format=yuv420`;
  }
  if (o.lineFiles.length) {
    const block = o.lineFiles.length * lineH;
    const pad = Math.round(size * 0.6);
    const top = o.image ? Math.round(H * 0.8 - block / 2) : Math.round((H - block) / 2);
    if (o.image) steps.push(`drawbox=x=0:y=${top - pad}:w=${W}:h=${block + 2 * pad}:color=${bg}@0.92:t=fill`);
    o.lineFiles.forEach((file, i) => {
      steps.push(`drawtext=fontfile='${o.fontFile.replace(/'/g, "")}':expansion=none:textfile='${file.replace(/'/g, "")}':fontsize=${size}:fontcolor=${ffmpegColour(o.accent)}:x=(w-text_w)/2:y=${top + i * lineH}`);
    });
  }
  steps.push("setsar=1");
  return `${graph},${steps.join(",")}${o.suffix}[vout]`;
}

/**
 * The rate a card is drawn at: the stream's base rate (r_frame_rate), exact for the constant-rate
 * video the renderer writes; for a variable-rate one, whose base rate can be a timestamp grid far
 * above its real rate (120 or 90000 "fps"), its average rate instead, so a card is not thousands of frames.
 */
export function cardRate(base: string | undefined, average: string | undefined): FrameRate | undefined {
  const r = parseRate(base);
  const avg = parseRate(average);
  if (r && avg && r.num / r.den > (2 * avg.num) / avg.den) return avg;
  return r ?? avg;
}

/** How the clip's video stream is timed: its frame rate and its time base's ticks per second. */
async function videoClock(path: string): Promise<{ rate: FrameRate; timescale: number }> {
  const v = (await ffprobeJson(path)).streams.find((s) => s.codec_type === "video");
  const rate = cardRate(v?.r_frame_rate, v?.avg_frame_rate);
  const timescale = Number(v?.time_base?.split("/")[1]);
  if (!rate || !(timescale > 0)) throw new Error(`${path}: no video frame rate to match a card to`);
  return { rate, timescale };
}

export interface CardJoinRequest {
  cards: ClipCards;
  look: BrandLook;
  frame: CaptionFrame;
  /** The clip's video alone (no audio), in the folder the cards and the list are written to. */
  video: string;
  /** The clip's finished audio (AAC). */
  audio: string;
  enc: ReturnType<typeof videoEncoderArgs>;
  audioBitrateKbps: number;
  audioChannels: 1 | 2;
  out: string;
}

/**
 * The delivered file: intro card, clip, outro card, by stream copy of the video and one encode of
 * the audio with the cards' silence around it. Resolves to the seconds each card lasts in the file.
 */
export async function joinWithCards(req: CardJoinRequest): Promise<CardTiming> {
  const work = dirname(req.video);
  const { rate, timescale } = await videoClock(req.video);
  const timing = cardTiming(req.cards, rate);
  const stem = basename(req.video).replace(/\.[^.]+$/, "");
  const names: string[] = [];
  for (const [which, card] of [["intro", req.cards.intro], ["outro", req.cards.outro]] as const) {
    if (which === "outro") names.push(basename(req.video));
    if (!card) continue;
    const name = `${stem}-${which}-card.mp4`;
    await renderCard(card, req, rate, timescale, join(work, name), `${stem}-${which}`);
    names.push(name);
  }
  const list = join(work, `${stem}-cards.txt`);
  await writeFile(list, names.map((n) => `file '${n}'\n`).join(""));
  const video = join(work, `${stem}-carded.mp4`);
  await ffmpeg(["-y", "-protocol_whitelist", "file", "-f", "concat", "-safe", "1", "-i", list, "-map", "0:v:0", "-c", "copy", "-f", "mp4", video]);

  const sampleRate = Number((await ffprobeJson(req.audio)).streams.find((s) => s.codec_type === "audio")?.sample_rate) || 48000;
  const audio = join(work, `${stem}-carded.m4a`);
  await ffmpeg([
    "-y", ...mediaInput(req.audio),
    "-filter_complex", `[0:a]${silenceAround(timing, sampleRate)}[a]`, "-map", "[a]",
    "-c:a", "aac", "-b:a", `${req.audioBitrateKbps}k`, "-ac", String(req.audioChannels), "-ar", String(sampleRate),
    audio,
  ]);
  await ffmpeg(["-y", ...mediaInput(video), ...mediaInput(audio), "-map", "0:v:0", "-map", "1:a:0", "-c", "copy", "-movflags", "+faststart", req.out]);
  return timing;
}

/** The audio filter that puts the cards' silence before and after: an exact sample count before, padding after. */
export function silenceAround(timing: CardTiming, sampleRate: number): string {
  const steps: string[] = [];
  if (timing.intro > 0) steps.push(`adelay=delays=${Math.round(timing.intro * sampleRate)}S:all=1`);
  steps.push(`apad=pad_dur=${timing.outro.toFixed(6)}`);
  return steps.join(",");
}

async function renderCard(card: CardLook, req: CardJoinRequest, rate: FrameRate, timescale: number, out: string, stem: string): Promise<void> {
  const work = dirname(out);
  const text = card.text?.trim() ?? "";
  const lines = text ? wrapTitle(text, cardTextLayout(req.frame).maxChars) : [];
  const lineFiles = await Promise.all(lines.map(async (line, i) => {
    const file = join(work, `${stem}-card-${i}.txt`);
    await writeFile(file, line);
    return file;
  }));
  const graph = cardGraph({
    frame: req.frame, rate, background: req.look.background_color, accent: req.look.accent_color,
    fontFile: boldFontFor(text, CAPTION_FONTS[req.look.caption_font]), lineFiles, image: !!card.image, suffix: req.enc.filterSuffix,
  });
  await ffmpeg([
    "-y", ...req.enc.inputArgs, ...(card.image ? imageInput(card.image.path, "png") : []),
    "-filter_complex", graph, "-map", "[vout]", "-an", ...req.enc.args,
    "-frames:v", String(cardFrames(card.seconds, rate)), "-video_track_timescale", String(timescale), "-f", "mp4", out,
  ]);
}

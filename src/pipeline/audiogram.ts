/**
 * Audiogram framing for audio-only sources: a coloured card with the show title, the name of the
 * speaker talking right now, a live waveform of the clip's audio and the burned-in captions.
 * Pure filter-graph construction; render.ts runs it.
 */
import { captionMargins, type CaptionFrame } from "./captions.ts";
import { assFilter } from "./render-graph.ts";

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
  /**
   * Frame rate of the spectrum animation (default: the output rate). A lower rate repeats frames,
   * which the encoder stores almost for free: the sandbox fixtures use it to stay small.
   */
  visualFps?: number;
}

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
  assPath: string;
  /** Font directory for the captions and the bold font file for title and name. */
  fontsDir: string;
  boldFont: string;
  suffix: string;
}

/** Filter graph from [0:a:0] to [vout]; [0:a:0] is read again separately for the audio output. */
export function audiogramFilter(o: AudiogramFilterOptions): string {
  const { width: W, height: H } = o.frame;
  const vertical = H > W;
  const bg = o.card?.background ?? "0x1b2a41";
  const accent = o.card?.accent ?? "0x7fdbca";
  const margins = captionMargins(o.frame);
  const waveW = Math.round(W * 0.84 / 2) * 2;
  const waveH = Math.round(H * (vertical ? 0.07 : 0.1) / 2) * 2;
  const waveY = Math.round(H * (vertical ? 0.42 : 0.45) / 2) * 2;
  const unit = Math.min(W, H);
  // Long titles shrink to fit between the margins (bold DejaVu averages ~0.62 em per character).
  const titleChars = Math.max(1, o.card?.title.length ?? 1);
  const titleSize = Math.round(Math.min(unit * 0.05, (W - margins.left - margins.right) / (titleChars * 0.62)));
  const nameSize = Math.round(unit * 0.075);
  const offset = o.clipStart ?? 0;
  const waveX = Math.round((W - waveW) / 4) * 2;
  const parts = [
    // The card is built around the spectrum: it is drawn over a backdrop of its own size and padded
    // out to the frame. Overlaying it on a full-frame backdrop would copy and blend the whole
    // 1080x1920 picture every frame, which cost more than the spectrum itself.
    `color=c=${bg}:s=${waveW}x${waveH}:r=${o.fps}[wbg]`,
    // A mirrored speech-band spectrum (0-4 kHz): it pulses with the voice and, being flat bars,
    // costs far fewer bits than a raw waveform.
    `[0:a:0]aformat=channel_layouts=mono,highpass=f=150,aresample=8000,volume=12,` +
      `showfreqs=s=${waveW}x${waveH / 2}:mode=bar:ascale=sqrt:fscale=lin:win_size=64:averaging=2:rate=${o.card?.visualFps ?? o.fps}:colors=${accent},` +
      `split[wu][wd];[wd]vflip[wdf];[wu][wdf]vstack[wave]`,
  ];
  const steps: string[] = [`[wbg][wave]overlay=shortest=1:format=yuv420`, `pad=${W}:${H}:${waveX}:${waveY}:color=${bg}`];
  // A thin accent bar under the title, so the card reads as a designed frame, not a blank.
  steps.push(`drawbox=x=${margins.left}:y=${Math.round(H * 0.12 + titleSize * 1.6)}:w=${W - margins.left - margins.right}:h=${Math.max(2, Math.round(unit * 0.006))}:color=${accent}:t=fill`);
  if (o.card?.title) {
    steps.push(`drawtext=fontfile='${o.boldFont}':expansion=none:text='${drawtextSafe(o.card.title)}':fontsize=${titleSize}:fontcolor=white:x=(w-text_w)/2:y=${Math.round(H * 0.12)}`);
  }
  const byName = new Map<string, SpeakerSpan[]>();
  for (const s of o.card?.speakers ?? []) byName.set(s.name, [...(byName.get(s.name) ?? []), s]);
  for (const [name, spans] of byName) {
    const enable = spans.map((s) => `between(t,${(s.start - offset).toFixed(2)},${(s.end - offset).toFixed(2)})`).join("+");
    steps.push(`drawtext=fontfile='${o.boldFont}':expansion=none:text='${drawtextSafe(name)}':fontsize=${nameSize}:fontcolor=${accent}:x=(w-text_w)/2:y=${Math.round(waveY - nameSize * 2.4)}:enable='${enable}'`);
  }
  steps.push("setsar=1");
  steps.push(assFilter(o.assPath, o.fontsDir));
  return `${parts.join(";")};${steps.join(",")}${o.suffix}[vout]`;
}

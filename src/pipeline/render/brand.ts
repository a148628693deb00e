/**
 * A show's brand on its renders: the logo in a corner, the caption font, and the card colours of
 * audiograms and thumbnails. The brand a job renders with is a snapshot (BrandSnapshot, in the job's
 * checkpoint) taken when its render stage first ran; the logo it names is content-addressed in the
 * appliance's storage, so a later brand change never alters that job's re-renders.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { brandLogoKey, type ObjectStore } from "../../storage/index.ts";
import type { CaptionFrame } from "./captions.ts";

export const LOGO_POSITIONS = ["top-left", "top-right", "bottom-left", "bottom-right"] as const;
export type LogoPosition = (typeof LOGO_POSITIONS)[number];

/** The caption fonts the appliance ships (Debian's fonts-dejavu-core): family name and the bold file drawn text uses. */
export const CAPTION_FONTS = {
  "DejaVu Sans": "DejaVuSans-Bold.ttf",
  "DejaVu Serif": "DejaVuSerif-Bold.ttf",
  "DejaVu Sans Mono": "DejaVuSansMono-Bold.ttf",
} as const;
export type CaptionFont = keyof typeof CAPTION_FONTS;
export const CAPTION_FONT_NAMES = Object.keys(CAPTION_FONTS) as [CaptionFont, ...CaptionFont[]];

/** Logo width as a share of the frame's width. */
export const MIN_LOGO_SCALE = 0.05;
export const MAX_LOGO_SCALE = 0.4;

/** What every render without a brand uses (the audiogram card's colours before brands existed). */
export const DEFAULT_BRAND = {
  logo_position: "top-right" as LogoPosition,
  logo_scale: 0.15,
  accent_color: "#7FDBCA",
  background_color: "#1B2A41",
  caption_font: "DejaVu Sans" as CaptionFont,
};

/** Intro and outro cards: a short still in the brand's colours before or after every clip and trailer. */
export const MIN_CARD_SECONDS = 0.5;
export const MAX_CARD_SECONDS = 3;
export const MAX_CARD_TEXT = 80;
export const CARD_NAMES = ["intro_card", "outro_card"] as const;
export type CardName = (typeof CARD_NAMES)[number];

/** A stored image (the logo, a card's picture) by its content hash: `brand/<sha256>.png` in the appliance's storage. */
export interface StoredImageRef {
  sha256: string;
  width: number;
  height: number;
}

/** A card as a job records it. */
export interface CardSnapshot {
  seconds: number;
  text?: string;
  image?: StoredImageRef;
}

/** A card ready to render: its image as a local PNG file. */
export interface CardLook {
  seconds: number;
  text?: string;
  image?: { path: string; width: number; height: number };
}

/** A brand as a job records it: stored images by their content hash, never by an upload that expires. */
export interface BrandSnapshot {
  logo?: StoredImageRef;
  logo_position: LogoPosition;
  logo_scale: number;
  accent_color: string;
  background_color: string;
  caption_font: CaptionFont;
  /** Snapshots taken before cards existed have neither. */
  intro_card?: CardSnapshot;
  outro_card?: CardSnapshot;
}

/** A brand ready to render: the logo and card images as local PNG files. */
export interface BrandLook extends Omit<BrandSnapshot, "logo" | CardName> {
  logo?: { path: string; width: number; height: number };
  intro_card?: CardLook;
  outro_card?: CardLook;
}

export const DEFAULT_LOOK: BrandLook = { ...DEFAULT_BRAND };

/** "#RRGGBB" as ffmpeg's colour syntax. */
export const ffmpegColour = (hex: string): string => `0x${hex.slice(1).toUpperCase()}`;

/** Where the logo sits on a frame: width a share of the frame's, height by its aspect, a margin from the corner. */
export function logoBox(frame: CaptionFrame, look: Pick<BrandLook, "logo_position" | "logo_scale">, logo: { width: number; height: number }): { x: number; y: number; w: number; h: number } {
  const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);
  let w = even(frame.width * look.logo_scale);
  let h = even((w * logo.height) / logo.width);
  // A tall logo is bounded by height instead: never more than a quarter of the frame.
  const maxH = frame.height * 0.25;
  if (h > maxH) {
    h = even(maxH);
    w = even((h * logo.width) / logo.height);
  }
  const margin = Math.round(Math.min(frame.width, frame.height) * 0.04);
  const right = look.logo_position.endsWith("right");
  const bottom = look.logo_position.startsWith("bottom");
  return { x: right ? frame.width - w - margin : margin, y: bottom ? frame.height - h - margin : margin, w, h };
}

/**
 * The logo laid over a labelled video: `[from]` and the logo input (`input`, e.g. "1:v") to `[to]`.
 * The logo is one still frame; overlay holds it for the whole clip. The blend is done in 4:2:0 with
 * the logo's alpha (yuva420p): overlay's format=auto picks RGBA for an RGBA logo and turns every
 * whole frame into RGBA and back, which cost 4.5× a plain pass over 1080p frames (3.46 s against
 * 0.78 s of CPU for 250 frames); in 4:2:0 the logo costs 0.3 ms a frame.
 */
export function logoOverlay(frame: CaptionFrame, look: BrandLook, input: string, from: string, to: string): string {
  const logo = look.logo!;
  const box = logoBox(frame, look, logo);
  return `[${input}]scale=${box.w}:${box.h}:flags=lanczos,format=yuva420p[brandlogo];[${from}][brandlogo]overlay=x=${box.x}:y=${box.y}:format=yuv420[${to}]`;
}

/** The snapshot's logo and card images as files on this node: the data directory's copies, fetched from shared storage when this node lacks them. */
export async function lookOf(snapshot: BrandSnapshot | null | undefined, dataDir: string, store?: ObjectStore): Promise<BrandLook> {
  if (!snapshot) return DEFAULT_LOOK;
  const { logo, intro_card, outro_card, ...rest } = snapshot;
  const look: BrandLook = { ...rest };
  if (logo) look.logo = await localImage(logo, dataDir, store);
  for (const [name, card] of [["intro_card", intro_card], ["outro_card", outro_card]] as const) {
    if (!card) continue;
    const { image, ...plain } = card;
    look[name] = image ? { ...plain, image: await localImage(image, dataDir, store) } : plain;
  }
  return look;
}

async function localImage(image: StoredImageRef, dataDir: string, store?: ObjectStore): Promise<{ path: string; width: number; height: number }> {
  const key = brandLogoKey(image.sha256);
  const path = join(dataDir, key);
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    if (!store || !(await store.download(key, path))) throw new Error(`brand image ${image.sha256} is missing from storage`);
  }
  return { path, width: image.width, height: image.height };
}

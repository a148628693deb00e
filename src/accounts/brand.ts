import { and, eq } from "drizzle-orm";
import { existsSync, openSync, readSync, closeSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { orgBrand } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { sha256Hex } from "../ids.ts";
import { imageKind, normaliseToPng, probeImage } from "../media/image.ts";
import { uploadFilePath } from "../pipeline/acquire.ts";
import { CARD_NAMES, DEFAULT_BRAND, type BrandSnapshot, type CaptionFont, type CardName, type CardSnapshot, type LogoPosition } from "../pipeline/render/brand.ts";
import { scratchDir } from "../scratch.ts";
import { brandLogoKey, uploadKey, type ObjectStore } from "../storage/index.ts";
import { findOwnUpload } from "../uploads/store.ts";
import type { Scope } from "./scope.ts";

/** A logo file bigger than this is refused before it is read (a logo is a few hundred KB at most). */
export const MAX_LOGO_BYTES = 5 * 1024 * 1024;
/** Pixel bounds, checked from the header before the image is decoded: no decompression bomb reaches the decoder. */
export const MAX_LOGO_SIDE = 4096;
export const MIN_LOGO_SIDE = 16;

/** What PUT /v1/brand takes; every field optional, left out means the appliance's default. */
export interface BrandSettings {
  logo_upload_id?: string | null;
  logo_position?: LogoPosition;
  logo_scale?: number;
  accent_color?: string;
  background_color?: string;
  caption_font?: CaptionFont;
  intro_card?: CardSettings | null;
  outro_card?: CardSettings | null;
}

/** An intro or outro card as sent: how long it shows, its text, and a picture sent like the logo. */
export interface CardSettings {
  seconds: number;
  text?: string | null;
  image_upload_id?: string | null;
}

/** The stored logo: its normalised PNG's hash (its storage key) and size. */
export interface StoredLogo {
  sha256: string;
  width: number;
  height: number;
  bytes: number;
}

/** An organisation's brand in one world: what was sent, and the logo it named as stored. */
export interface StoredBrand {
  settings: BrandSettings;
  logo: StoredLogo | null;
  /** The stored picture of each card that names one (kits stored before cards existed have none). */
  cardImages: Partial<Record<CardName, StoredLogo>>;
  updatedAt: number | null;
}

export function getBrand(db: Db, scope: Scope): StoredBrand {
  const row = db.select().from(orgBrand).where(and(eq(orgBrand.orgId, scope.orgId), eq(orgBrand.env, scope.env))).get();
  if (!row) return { settings: {}, logo: null, cardImages: {}, updatedAt: null };
  const { logo, card_images, ...settings } = JSON.parse(row.settings) as BrandSettings & { logo: StoredLogo | null; card_images?: Partial<Record<CardName, StoredLogo>> };
  return { settings, logo, cardImages: card_images ?? {}, updatedAt: row.updatedAt };
}

function cardSnapshot(card: CardSettings | null | undefined, image: StoredLogo | undefined): CardSnapshot | undefined {
  if (!card) return undefined;
  return { seconds: card.seconds, ...(card.text ? { text: card.text } : {}), ...(image ? { image: { sha256: image.sha256, width: image.width, height: image.height } } : {}) };
}

/** The brand a job of this organisation and world renders with, or null when none was ever stored. */
export function brandSnapshot(db: Db, scope: Scope): BrandSnapshot | null {
  const b = getBrand(db, scope);
  if (b.updatedAt === null) return null;
  const s = b.settings;
  return {
    ...(b.logo ? { logo: { sha256: b.logo.sha256, width: b.logo.width, height: b.logo.height } } : {}),
    logo_position: s.logo_position ?? DEFAULT_BRAND.logo_position,
    logo_scale: s.logo_scale ?? DEFAULT_BRAND.logo_scale,
    accent_color: s.accent_color ?? DEFAULT_BRAND.accent_color,
    background_color: s.background_color ?? DEFAULT_BRAND.background_color,
    caption_font: s.caption_font ?? DEFAULT_BRAND.caption_font,
    ...(s.intro_card ? { intro_card: cardSnapshot(s.intro_card, b.cardImages.intro_card) } : {}),
    ...(s.outro_card ? { outro_card: cardSnapshot(s.outro_card, b.cardImages.outro_card) } : {}),
  };
}

const badImage = (message: string, param: string) => new ApiError("invalid_body", message, param);

/**
 * Replaces the brand (a PUT). The logo is taken from the named upload: checked to be a PNG or JPEG
 * by its first bytes, probed for its size, decoded whole and written again as a plain PNG into the
 * appliance's storage, so it outlives the upload. Naming the upload the stored brand already names
 * keeps its stored logo, even after the upload itself has expired: a GET's answer can be PUT back.
 */
export async function setBrand(db: Db, clock: Clock, dataDir: string, store: ObjectStore, scope: Scope, settings: BrandSettings): Promise<StoredBrand> {
  const current = getBrand(db, scope);
  let logo: StoredLogo | null = null;
  const uploadId = settings.logo_upload_id ?? null;
  if (uploadId !== null) {
    logo = uploadId === current.settings.logo_upload_id && current.logo ? current.logo : await storeImage(db, clock, dataDir, store, scope, uploadId, "logo_upload_id", "logo");
  }
  // A card's picture is checked and kept exactly as the logo is, and round-trips the same way.
  const cardImages: Partial<Record<CardName, StoredLogo>> = {};
  for (const name of CARD_NAMES) {
    const id = settings[name]?.image_upload_id ?? null;
    if (id === null) continue;
    const kept = current.settings[name]?.image_upload_id === id ? current.cardImages[name] : undefined;
    cardImages[name] = kept ?? (await storeImage(db, clock, dataDir, store, scope, id, `${name}.image_upload_id`, "card image"));
  }
  const updatedAt = clock.now();
  const json = JSON.stringify({ ...settings, logo, card_images: cardImages });
  db.insert(orgBrand)
    .values({ orgId: scope.orgId, env: scope.env, settings: json, updatedAt })
    .onConflictDoUpdate({ target: [orgBrand.orgId, orgBrand.env], set: { settings: json, updatedAt } })
    .run();
  return { settings, logo, cardImages, updatedAt };
}

/** An uploaded PNG or JPEG checked, normalised to a plain PNG and stored by its hash; `param` and `what` name it in errors. */
async function storeImage(db: Db, clock: Clock, dataDir: string, store: ObjectStore, scope: Scope, uploadId: string, param: string, what: string): Promise<StoredLogo> {
  const bad = (message: string) => badImage(message, param);
  const upload = findOwnUpload(db, clock, scope, uploadId);
  if (!upload) throw bad(`No upload ${uploadId} for this key: it does not exist, belongs to another organisation or environment, or has expired.`);
  if (upload.status !== "complete") throw bad(`Upload ${uploadId} has not been fully received yet.`);
  if ((upload.size ?? 0) > MAX_LOGO_BYTES) throw bad(`The ${what} is ${upload.size} bytes; it may be at most ${MAX_LOGO_BYTES} bytes.`);
  const work = await scratchDir("render");
  try {
    let file = uploadFilePath(dataDir, uploadId);
    if (!existsSync(file)) {
      file = join(work, "upload");
      if (!store.shared || !(await store.download(uploadKey(uploadId), file))) throw bad(`Upload ${uploadId} has no file any more.`);
    }
    const kind = imageKind(firstBytes(file, 16));
    if (!kind) throw bad(`The ${what} must be a PNG or JPEG image (checked from its content; SVG, GIF, WebP and other formats are not accepted).`);
    const info = await probeImage(file, kind);
    if (!info) throw bad(`The ${what} does not read as a ${kind.toUpperCase()} image.`);
    if (info.width > MAX_LOGO_SIDE || info.height > MAX_LOGO_SIDE || info.width < MIN_LOGO_SIDE || info.height < MIN_LOGO_SIDE) {
      throw bad(`The ${what} is ${info.width}×${info.height} pixels; each side must be ${MIN_LOGO_SIDE}-${MAX_LOGO_SIDE}.`);
    }
    const png = join(work, "logo.png");
    try {
      await normaliseToPng(file, kind, png);
    } catch {
      throw bad(`The ${what}'s ${kind.toUpperCase()} data does not decode (a truncated or damaged file).`);
    }
    const bytes = readFileSync(png);
    const sha256 = sha256Hex(bytes);
    await store.putFile(brandLogoKey(sha256), png, { contentType: "image/png" });
    return { sha256, width: info.width, height: info.height, bytes: bytes.length };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function firstBytes(path: string, n: number): Uint8Array {
  const fd = openSync(path, "r");
  try {
    const buf = new Uint8Array(n);
    const read = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

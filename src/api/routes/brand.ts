import { z } from "zod";
import type { AppContext } from "../context.ts";
import { getBrand, setBrand, type StoredBrand } from "../../accounts/brand.ts";
import { isoUtc } from "../../clock.ts";
import { CAPTION_FONT_NAMES, DEFAULT_BRAND, LOGO_POSITIONS, MAX_CARD_SECONDS, MAX_CARD_TEXT, MAX_LOGO_SCALE, MIN_CARD_SECONDS, MIN_LOGO_SCALE, type CardName } from "../../pipeline/render/brand.ts";
import { ApiError } from "../../errors.ts";
import { brandLogoKey } from "../../storage/index.ts";
import { readJsonObject } from "../body.ts";
import { guard } from "../guard.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
import { parseOrThrow } from "../../validate.ts";

type Headers = HeaderBag;

/** The organisation's brand kit (extension). */
export function register(app: App, ctx: AppContext): void {
  app
    .get("/v1/brand", ({ request, set }) => getBrandRoute(ctx, request, reply(set).headers))
    .get("/v1/brand/logo", ({ request, set }) => getBrandLogoRoute(ctx, request, reply(set).headers))
    .put("/v1/brand", ({ request, set }) => putBrandRoute(ctx, request, reply(set).headers), { parse: "none" });
}

const Colour = z.string().regex(/^#[0-9A-Fa-f]{6}$/, "must be a colour written #RRGGBB");

/** An intro or outro card as PUT takes it. */
const CardSchema = (which: "before" | "after") =>
  z
    .object({
      seconds: z.number().min(MIN_CARD_SECONDS).max(MAX_CARD_SECONDS).describe(`How long the card shows, ${MIN_CARD_SECONDS}-${MAX_CARD_SECONDS} s (rounded to whole frames of the clip)`),
      text: z
        .string()
        .trim()
        .min(1)
        .max(MAX_CARD_TEXT)
        .refine((t) => !/[\u0000-\u001f\u007f-\u009f]/.test(t), "must not contain control characters")
        .nullable()
        .optional()
        .describe(`Text drawn on the card in the accent colour and caption font, 1-${MAX_CARD_TEXT} characters (trimmed; no control characters); null or left out: none`),
      image_upload_id: z
        .string()
        .nullable()
        .optional()
        .describe("A PNG or JPEG picture for the card, sent to POST /v1/uploads and checked exactly as the logo is; it fills the frame letterboxed on the background colour"),
    })
    .strict()
    .nullable()
    .optional()
    .describe(`Extension: a card of the brand's background colour shown ${which} every clip and trailer of later jobs (text and/or picture); null or left out: none`);

/** PUT /v1/brand's body: the whole brand kit, which replaces the stored one; a field left out takes its default. */
export const BrandPutSchema = z
  .object({
    logo_upload_id: z
      .string()
      .nullable()
      .optional()
      .describe("A PNG or JPEG (16-4096 px a side, at most 5 MB) sent to POST /v1/uploads by this organisation in this world; it is copied into the appliance's storage, so the upload may expire. The id the stored brand already names keeps its stored logo. null or left out: no logo"),
    logo_position: z.enum(LOGO_POSITIONS).optional().describe(`Corner the logo sits in (default ${DEFAULT_BRAND.logo_position})`),
    logo_scale: z.number().min(MIN_LOGO_SCALE).max(MAX_LOGO_SCALE).optional().describe(`Logo width as a share of the frame's width, ${MIN_LOGO_SCALE}-${MAX_LOGO_SCALE} (default ${DEFAULT_BRAND.logo_scale})`),
    accent_color: Colour.optional().describe(`#RRGGBB: audiogram waveform and rule, thumbnail title (default ${DEFAULT_BRAND.accent_color})`),
    background_color: Colour.optional().describe(`#RRGGBB: audiogram card and thumbnail title band (default ${DEFAULT_BRAND.background_color})`),
    caption_font: z.enum(CAPTION_FONT_NAMES).optional().describe(`Burned-in captions, card and thumbnail text: one of the fonts the appliance ships (${CAPTION_FONT_NAMES.join(", ")}; default ${DEFAULT_BRAND.caption_font})`),
    intro_card: CardSchema("before"),
    outro_card: CardSchema("after"),
  })
  .strict();

const CardResourceSchema = z
  .object({
    seconds: z.number(),
    text: z.string().nullable(),
    image_upload_id: z.string().nullable().describe("The upload the card's picture was taken from, as sent"),
    image: z.object({ sha256: z.string(), width: z.number().int(), height: z.number().int(), bytes: z.number().int() }).nullable().describe("The stored picture (a PNG made from the upload); null without one"),
  })
  .nullable();

export const BrandResourceSchema = z.object({
  object: z.literal("brand"),
  logo_upload_id: z.string().nullable().describe("The upload the logo was taken from, as sent"),
  logo: z
    .object({ sha256: z.string(), width: z.number().int(), height: z.number().int(), bytes: z.number().int() })
    .nullable()
    .describe("The stored logo (a PNG made from the upload): its SHA-256, pixel size and bytes; null without one"),
  logo_position: z.enum(LOGO_POSITIONS),
  logo_scale: z.number(),
  accent_color: z.string(),
  background_color: z.string(),
  caption_font: z.enum(CAPTION_FONT_NAMES),
  intro_card: CardResourceSchema.describe("Extension: the card before every clip and trailer; null without one"),
  outro_card: CardResourceSchema.describe("Extension: the card after every clip and trailer; null without one"),
  updated_at: z.string().nullable().describe("When the brand was last stored; null if never (every field then shows its default, and jobs render without a brand)"),
  livemode: z.boolean().describe("true for the live world's brand (live keys), false for the sandbox's"),
});

export function presentBrand(b: StoredBrand, env: "live" | "test"): z.infer<typeof BrandResourceSchema> {
  const s = b.settings;
  return {
    object: "brand",
    logo_upload_id: s.logo_upload_id ?? null,
    logo: b.logo,
    logo_position: s.logo_position ?? DEFAULT_BRAND.logo_position,
    logo_scale: s.logo_scale ?? DEFAULT_BRAND.logo_scale,
    accent_color: s.accent_color ?? DEFAULT_BRAND.accent_color,
    background_color: s.background_color ?? DEFAULT_BRAND.background_color,
    caption_font: s.caption_font ?? DEFAULT_BRAND.caption_font,
    intro_card: presentCard(b, "intro_card"),
    outro_card: presentCard(b, "outro_card"),
    updated_at: b.updatedAt === null ? null : isoUtc(b.updatedAt),
    livemode: env === "live",
  };
}

function presentCard(b: StoredBrand, name: CardName): z.infer<typeof CardResourceSchema> {
  const card = b.settings[name];
  if (!card) return null;
  return { seconds: card.seconds, text: card.text ?? null, image_upload_id: card.image_upload_id ?? null, image: b.cardImages[name] ?? null };
}

/** GET /v1/brand (extension) — the organisation's brand kit in the key's world. */
export function getBrandRoute(ctx: AppContext, request: Request, headers: Headers) {
  const p = guard(ctx, request, headers);
  return presentBrand(getBrand(ctx.db, p), p.env);
}

/**
 * GET /v1/brand/logo (extension) — the stored logo as PNG, for a preview (the dashboard editor). Its
 * ETag is the logo's hash: a new logo is a new tag.
 */
export async function getBrandLogoRoute(ctx: AppContext, request: Request, headers: Headers): Promise<Response> {
  const p = guard(ctx, request, headers);
  const logo = getBrand(ctx.db, p).logo;
  const object = logo ? await ctx.storage.open(brandLogoKey(logo.sha256)) : undefined;
  if (!logo || !object) throw new ApiError("not_found", "This organisation's brand has no logo in this world.", null);
  return new Response(object.body, {
    headers: { ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])), "content-type": "image/png", "content-length": String(object.size), etag: `"${logo.sha256}"`, "cache-control": "private, no-cache", "x-content-type-options": "nosniff" },
  });
}

/** PUT /v1/brand (extension) — replaces the brand kit; every later job of the world renders with it. */
export async function putBrandRoute(ctx: AppContext, request: Request, headers: Headers) {
  const p = guard(ctx, request, headers);
  const body = parseOrThrow(BrandPutSchema, await readJsonObject(request), () => "invalid_body");
  return presentBrand(await setBrand(ctx.db, ctx.clock, ctx.config.dataDir, ctx.storage, p, body), p.env);
}

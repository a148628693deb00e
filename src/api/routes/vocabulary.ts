import { z } from "zod";
import type { AppContext } from "../context.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
import { getVocabulary, setVocabulary, type StoredVocabulary } from "../../accounts/vocabulary.ts";
import { isoUtc } from "../../clock.ts";
import { VocabularySchema } from "../../jobs/vocabulary-schema.ts";
import { readJsonObject } from "../body.ts";
import { guard } from "../guard.ts";
import { parseOrThrow } from "../../validate.ts";

/** The organisation's vocabulary (extension). */
export function register(app: App, ctx: AppContext): void {
  app
    .get("/v1/vocabulary", ({ request, set }) => getVocabularyRoute(ctx, request, reply(set).headers))
    .put("/v1/vocabulary", ({ request, set }) => putVocabularyRoute(ctx, request, reply(set).headers), { parse: "none" });
}


/** PUT /v1/vocabulary's body: the whole list, which replaces the stored one (an empty list clears it). */
export const VocabularyPutSchema = z.object({ entries: VocabularySchema }).strict();

export const VocabularyResourceSchema = z.object({
  object: z.literal("vocabulary"),
  entries: z.array(z.string()).describe("The organisation's names and terms in this key's world, as last stored"),
  updated_at: z.string().nullable().describe("When the list was last stored; null if never"),
  livemode: z.boolean().describe("true for the live world's list (live keys), false for the sandbox's"),
});

function present(v: StoredVocabulary, env: "live" | "test"): z.infer<typeof VocabularyResourceSchema> {
  return { object: "vocabulary", entries: v.entries, updated_at: v.updatedAt === null ? null : isoUtc(v.updatedAt), livemode: env === "live" };
}

/** GET /v1/vocabulary (extension) — the organisation's list in the key's world. */
function getVocabularyRoute(ctx: AppContext, request: Request, headers: HeaderBag) {
  const p = guard(ctx, request, headers);
  return present(getVocabulary(ctx.db, p), p.env);
}

/** PUT /v1/vocabulary (extension) — replaces the list; every later live job of the world is given it. */
async function putVocabularyRoute(ctx: AppContext, request: Request, headers: HeaderBag) {
  const p = guard(ctx, request, headers);
  const body = parseOrThrow(VocabularyPutSchema, await readJsonObject(request), () => "invalid_body");
  return present(setVocabulary(ctx.db, ctx.clock, p, body.entries), p.env);
}

import type { AppContext } from "../context.ts";
import { reply, type App, type HeaderBag } from "../routing.ts";
import { presentFeed } from "../../feeds/present.ts";
import { deleteFeed, registerFeed } from "../../feeds/service.ts";
import { listFeeds } from "../../feeds/store.ts";
import { readJsonObject } from "../body.ts";
import type { ErrorCode } from "../../errors.ts";
import { guard } from "../guard.ts";
import { FeedCreateSchema } from "../../feeds/schema.ts";
import { parseOrThrow } from "../../validate.ts";

/** Podcast feeds (extension). */
export function register(app: App, ctx: AppContext): void {
  app
    .post("/v1/feeds", ({ request, set }) => {
      set.status = 201;
      return createFeedRoute(ctx, request, reply(set).headers);
    }, { parse: "none" })
    .get("/v1/feeds", ({ request, set }) => listFeedsRoute(ctx, request, reply(set).headers))
    .delete("/v1/feeds/:id", ({ request, set, params }) => deleteFeedRoute(ctx, request, reply(set).headers, params.id), { parse: "none" });
}


function codeFor(param: string): ErrorCode {
  if (param === "url") return "invalid_feed_url";
  return "invalid_body";
}

/** POST /v1/feeds — 201 with the feed; its first poll starts at once. */
async function createFeedRoute(ctx: AppContext, request: Request, headers: HeaderBag) {
  const p = guard(ctx, request, headers);
  const body = parseOrThrow(FeedCreateSchema, await readJsonObject(request), codeFor);
  return presentFeed(registerFeed(ctx.feeds, p, body));
}

/** GET /v1/feeds — a list envelope of the key's world, newest first. */
function listFeedsRoute(ctx: AppContext, request: Request, headers: HeaderBag) {
  const p = guard(ctx, request, headers);
  return { object: "list" as const, has_more: false, data: listFeeds(ctx.db, p).map(presentFeed) };
}

/** DELETE /v1/feeds/{id} — 200 with a deletion marker; polling stops, jobs already made stay. */
function deleteFeedRoute(ctx: AppContext, request: Request, headers: HeaderBag, id: string) {
  const p = guard(ctx, request, headers);
  const feed = deleteFeed(ctx.feeds, p, id);
  return { id: feed.id, object: "feed" as const, deleted: true };
}

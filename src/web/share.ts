import { join } from "node:path";
import type { AppContext } from "../api/context.ts";
import { RATE_LIMITS } from "../api/rate-limit.ts";
import { requestIdOf } from "../api/request-id.ts";
import type { App } from "../api/routing.ts";
import { isoUtc } from "../clock.ts";
import { jobOutputDir, parseFileRef, outputFiles, type StoredClip, type StoredOutput } from "../pipeline/output.ts";
import { reviewClip } from "../jobs/review.ts";
import { readForm } from "./dashboard/router.ts";
import { shareTokenHash } from "../jobs/share-tokens.ts";
import { getJobByShareHash } from "../jobs/store.ts";
import { fixturePath } from "../sandbox/fixtures.ts";
import { esc, fmtTime, htmlSecurityHeaders, page } from "./html.ts";
import { shareText, type ShareText } from "./share-text.ts";
import { serveBlob, serveFile } from "./files.ts";
import { jobOutputKey, PRESIGN_SECONDS } from "../storage/index.ts";


function findShared(ctx: AppContext, token: string) {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined;
  const job = getJobByShareHash(ctx.db, shareTokenHash(token));
  return job && job.status === "complete" && job.output ? { job, output: JSON.parse(job.output) as StoredOutput } : undefined;
}

/** The dashboard's headers, with the players allowed to load same-origin media and forms only to this origin (the review buttons). */
const SHARE_HEADERS = {
  ...htmlSecurityHeaders("media-src 'self'; form-action 'self'"),
  "referrer-policy": "no-referrer",
  "x-robots-tag": "noindex",
};

const notFound = () =>
  new Response(page("Not found", "<h1>Not found</h1><p class=muted>This share link does not exist.</p>"), {
    status: 404,
    headers: SHARE_HEADERS,
  });

/** GET /share/{token}: the guest page, every clip with a player and a download link. */
export function sharePage(ctx: AppContext, token: string): Response {
  const found = findShared(ctx, token);
  if (!found) return notFound();
  const { output } = found;
  const text = shareText(output.language);
  const title = output.title ?? text.untitled;
  const src = (ref: string) => `/share/${token}/files/${parseFileRef(ref)!.name}`;
  const clips = output.clips
    .map((c) => {
      const vertical = c.files.linkedin ? src(c.files.linkedin) : undefined;
      const wide = c.files.x ? src(c.files.x) : undefined;
      // The page is public: clips are told apart by rank, never by their ids (which embed the job's).
      return `<article class="card" id="clip-${c.rank}" data-rank="${c.rank}" data-review="${c.review?.decision ?? "none"}">
  <div><span class="tag">#${c.rank}</span><span class="tag">${esc(c.category)}</span><span class="muted">${fmtTime(c.start_time)}–${fmtTime(c.end_time)} · ${Math.round(c.duration_seconds)} s</span></div>
  <video controls preload="metadata" playsinline src="${esc(vertical ?? wide ?? "")}#t=0.5"></video>
  <p><strong>${esc(c.hook)}</strong></p>
  <blockquote>${esc(c.pull_quote)}</blockquote>
  ${vertical ? `<a class="btn" download href="${esc(vertical)}">${esc(text.download("9:16"))}</a>` : ""}${wide ? `<a class="btn" download href="${esc(wide)}">${esc(text.download("16:9"))}</a>` : ""}
  ${c.captions ? `<p class="muted">${esc(text.captions)}: <a download href="${esc(src(c.captions.srt))}">SRT</a> · <a download href="${esc(src(c.captions.vtt))}">VTT</a></p>` : ""}
  ${reviewForm(token, c, text)}
</article>`;
    })
    .join("\n");
  const trailer = output.trailer
    ? `<section class="card" style="margin-bottom:20px"><h2>${esc(text.trailer)}</h2><video controls preload="metadata" playsinline src="${esc(src(output.trailer.file))}" style="max-width:360px"></video><br><a class="btn" download href="${esc(src(output.trailer.file))}">${esc(text.downloadTrailer)}</a></section>`
    : "";
  const body = `<header><p class="muted">${esc(text.sharedWithYou)}</p><h1>${esc(title)}</h1><p class="muted">${esc(text.ready(output.clips.length))}</p></header>
${trailer}<section class="grid">${clips}</section>${exportsSection(output, src, text)}`;
  return new Response(page(title, body, REVIEW_STYLE, text.lang), { headers: SHARE_HEADERS });
}

const REVIEW_STYLE = `<style>
button.btn{display:inline-block;margin:6px 8px 0 0;padding:6px 12px;border-radius:8px;border:0;background:var(--accent);color:#fff;font:inherit;font-size:.9rem;cursor:pointer}
button.btn.plain{background:transparent;color:var(--accent);border:1px solid var(--accent)}
.review-form{margin-top:10px;border-top:1px solid #8883;padding-top:8px}.review{margin:0}.review.approved strong{color:#1a7f37}.review.rejected strong{color:#c62828}
</style>`;

const DECISIONS = { approve: "approved", reject: "rejected" } as const;

/** The guest's approve/reject buttons: a plain same-origin form, so the page needs no script. */
function reviewForm(token: string, c: StoredClip, text: ShareText): string {
  const state = c.review
    ? `<p class="review ${c.review.decision}" role="status"><strong>${c.review.decision === "approved" ? `✓ ${esc(text.approved)}` : `✗ ${esc(text.rejected)}`}</strong> <span class="muted">${esc(isoUtc(c.review.reviewed_at).replace("T", " ").slice(0, 16))} UTC</span></p>`
    : `<p class="muted">${esc(text.notReviewed)}</p>`;
  return `<form method="post" action="/share/${esc(token)}/clips/${c.rank}/review" class="review-form">${state}
    <button class="btn" type="submit" name="decision" value="approve" aria-label="Approve clip ${c.rank}">${esc(text.approve)}</button>
    <button class="btn plain" type="submit" name="decision" value="reject" aria-label="Reject clip ${c.rank}">${esc(text.reject)}</button></form>`;
}

/**
 * A browser form post from this page, not from another site: the share link is the credential, so a
 * page elsewhere must not make a visitor's browser post decisions with it. The page sends no referrer,
 * so Chromium's Origin on its own posts is "null"; Sec-Fetch-Site tells same-origin from cross-site.
 * Clients that send neither header (scripts holding the link) are not browsers being tricked.
 */
function fromThisOrigin(ctx: AppContext, request: Request): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site === "same-origin";
  const origin = request.headers.get("origin");
  return origin === null || origin === new URL(request.url).origin || origin === new URL(ctx.config.publicUrl).origin;
}

const refused = (status: number, message: string) => new Response(page("Refused", `<h1>Refused</h1><p>${esc(message)}</p>`), { status, headers: SHARE_HEADERS });

/** POST /share/{token}/clips/{rank}/review: a guest approves or rejects one clip (form field `decision`). */
export async function reviewFromSharePage(ctx: AppContext, token: string, rank: string, request: Request): Promise<Response> {
  const found = findShared(ctx, token);
  if (!found || !/^[1-9][0-9]?$/.test(rank)) return notFound();
  if (!fromThisOrigin(ctx, request)) return refused(403, "Reviews are accepted only from the share page itself.");
  // Each change of mind sends a webhook: a link's reviews get the API's write budget per key.
  const budget = ctx.limiter.hit(`share-review:${found.job.id}`, RATE_LIMITS.write);
  if (!budget.allowed) {
    return new Response(page("Too many reviews", "<h1>Too many reviews</h1><p>Wait a minute and try again.</p>"), { status: 429, headers: { ...SHARE_HEADERS, "retry-after": String(budget.retryAfterSeconds) } });
  }
  const decision = DECISIONS[(await readForm(request)).get("decision") as keyof typeof DECISIONS];
  if (!decision) return refused(400, "Choose approve or reject.");
  const reviewed = reviewClip(ctx.db, ctx.clock, ctx.reviewEffects, found.job.id, Number(rank), decision, requestIdOf(request));
  if (!reviewed) return notFound();
  return new Response(null, { status: 303, headers: { location: `/share/${token}#clip-${rank}`, "referrer-policy": "no-referrer", "cache-control": "no-store" } });
}

const EXPORT_LABELS: Array<[keyof NonNullable<StoredOutput["exports"]>, string]> = [
  ["transcript_txt", "Transcript (text)"],
  ["transcript_srt", "Transcript (SRT)"],
  ["transcript_vtt", "Transcript (VTT)"],
  ["chapters", "Chapters (Podcasting 2.0 JSON)"],
  ["timeline", "Timeline (OpenTimelineIO)"],
  ["timeline_fcpxml", "Timeline (Final Cut Pro / Resolve FCPXML)"],
  ["timeline_xmeml", "Timeline (Premiere / Final Cut 7 XML)"],
];

function exportsSection(output: StoredOutput, src: (ref: string) => string, text: ShareText): string {
  const files = output.exports;
  if (!files) return "";
  const links = EXPORT_LABELS.filter(([key]) => files[key]).map(([key, label]) => `<a class="btn" download href="${esc(src(files[key]!))}">${esc(label)}</a>`).join("");
  return `<section class="card" data-exports style="margin-top:20px"><h2>${esc(text.forEditor)}</h2><p class="muted">${esc(text.forEditorNote)}</p>${links}</section>`;
}

/**
 * GET /share/{token}/files/{name}: only files the job's output names, with Range support. With shared
 * storage a job's file is a redirect to a presigned URL of the object (valid PRESIGN_SECONDS), or,
 * with CLIPYARD_STORAGE_PROXY, streamed from the bucket through here; either way only after the
 * token and the output's list of files have been checked, exactly as for a local file. Bundled
 * sandbox fixtures are in every node's binary and are served from it whatever the storage.
 */
export async function shareFile(ctx: AppContext, token: string, name: string, request: Request): Promise<Response> {
  const found = findShared(ctx, token);
  if (!found) return notFound();
  const ref = outputFiles(found.output).map(parseFileRef).find((r) => r?.name === name);
  if (!ref) return notFound();
  const headers = {
    "content-disposition": `inline; filename="${ref.name}"`,
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  };
  if (ref.kind === "job" && ctx.storage.shared) {
    const key = jobOutputKey(found.job.id, ref.name);
    if (ctx.config.storage?.proxy) {
      const object = await ctx.storage.open(key);
      return object ? serveBlob(object.body, object.size, ref.name, request, headers, { stream: true }) : new Response("not found", { status: 404 });
    }
    // The URL expires, so neither the browser nor a proxy may keep the redirect.
    return new Response(null, { status: 302, headers: { location: ctx.storage.presign(key, PRESIGN_SECONDS)!, "cache-control": "no-store", "referrer-policy": "no-referrer" } });
  }
  const path = ref.kind === "fixture" ? fixturePath(ref.name) : join(jobOutputDir(ctx.config.dataDir, found.job.id), ref.name);
  if (!path) return notFound();
  return serveFile(path, request, headers);
}

/** The guest share page's routes: the page, a guest's clip review, the files. The token in the path is the only credential. */
export function registerSharePage(app: App, ctx: AppContext): void {
  app
    .get("/share/:token", ({ params }) => sharePage(ctx, params.token))
    .post("/share/:token/clips/:rank/review", ({ params, request }) => reviewFromSharePage(ctx, params.token, params.rank, request), { parse: "none" })
    .get("/share/:token/files/:name", ({ params, request }) => shareFile(ctx, params.token, params.name, request));
}

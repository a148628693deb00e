import { join } from "node:path";
import type { AppContext } from "../context.ts";
import { jobOutputDir, parseFileRef, outputFiles, type StoredOutput } from "../jobs/output.ts";
import { shareTokenHash } from "../jobs/share.ts";
import { getJobByShareHash } from "../jobs/store.ts";
import { fixturePath } from "../sandbox/fixtures.ts";
import { esc, fmtTime, htmlSecurityHeaders, page } from "./html.ts";
import { serveFile } from "./files.ts";


function findShared(ctx: AppContext, token: string) {
  if (!/^[A-Za-z0-9_-]{16,64}$/.test(token)) return undefined;
  const job = getJobByShareHash(ctx.db, shareTokenHash(token));
  return job && job.status === "complete" && job.output ? { job, output: JSON.parse(job.output) as StoredOutput } : undefined;
}

/** The dashboard's headers, with the players allowed to load same-origin media and no forms at all. */
const SHARE_HEADERS = {
  ...htmlSecurityHeaders("media-src 'self'; form-action 'none'"),
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
  const title = output.title ?? "Episode clips";
  const src = (ref: string) => `/share/${token}/files/${parseFileRef(ref)!.name}`;
  const clips = output.clips
    .map((c) => {
      const vertical = c.files.linkedin ? src(c.files.linkedin) : undefined;
      const wide = c.files.x ? src(c.files.x) : undefined;
      // The page is public: clips are told apart by rank, never by their ids (which embed the job's).
      return `<article class="card" data-rank="${c.rank}">
  <div><span class="tag">#${c.rank}</span><span class="tag">${esc(c.category)}</span><span class="muted">${fmtTime(c.start_time)}–${fmtTime(c.end_time)} · ${Math.round(c.duration_seconds)} s</span></div>
  <video controls preload="metadata" playsinline src="${esc(vertical ?? wide ?? "")}#t=0.5"></video>
  <p><strong>${esc(c.hook)}</strong></p>
  <blockquote>${esc(c.pull_quote)}</blockquote>
  ${vertical ? `<a class="btn" download href="${esc(vertical)}">Download 9:16</a>` : ""}${wide ? `<a class="btn" download href="${esc(wide)}">Download 16:9</a>` : ""}
  ${c.captions ? `<p class="muted">Captions: <a download href="${esc(src(c.captions.srt))}">SRT</a> · <a download href="${esc(src(c.captions.vtt))}">VTT</a></p>` : ""}
</article>`;
    })
    .join("\n");
  const trailer = output.trailer
    ? `<section class="card" style="margin-bottom:20px"><h2>Trailer</h2><video controls preload="metadata" playsinline src="${esc(src(output.trailer.file))}" style="max-width:360px"></video><br><a class="btn" download href="${esc(src(output.trailer.file))}">Download trailer</a></section>`
    : "";
  const body = `<header><p class="muted">Shared with you</p><h1>${esc(title)}</h1><p class="muted">${output.clips.length} clips ready to post. Play them here or download them.</p></header>
${trailer}<section class="grid">${clips}</section>${exportsSection(output, src)}`;
  return new Response(page(title, body), { headers: SHARE_HEADERS });
}

const EXPORT_LABELS: Array<[keyof NonNullable<StoredOutput["exports"]>, string]> = [
  ["transcript_txt", "Transcript (text)"],
  ["transcript_srt", "Transcript (SRT)"],
  ["transcript_vtt", "Transcript (VTT)"],
  ["chapters", "Chapters (Podcasting 2.0 JSON)"],
  ["timeline", "Timeline (OpenTimelineIO)"],
];

function exportsSection(output: StoredOutput, src: (ref: string) => string): string {
  const files = output.exports;
  if (!files) return "";
  const links = EXPORT_LABELS.map(([key, label]) => `<a class="btn" download href="${esc(src(files[key]))}">${esc(label)}</a>`).join("");
  return `<section class="card" data-exports style="margin-top:20px"><h2>For your editor</h2><p class="muted">The transcript, chapters for your podcast feed, and a timeline with the clips as ranges of the episode.</p>${links}</section>`;
}

/** GET /share/{token}/files/{name}: only files the job's output names, with Range support. */
export function shareFile(ctx: AppContext, token: string, name: string, request: Request): Response {
  const found = findShared(ctx, token);
  if (!found) return notFound();
  const ref = outputFiles(found.output).map(parseFileRef).find((r) => r?.name === name);
  if (!ref) return notFound();
  const path = ref.kind === "fixture" ? fixturePath(ref.name) : join(jobOutputDir(ctx.config.dataDir, found.job.id), ref.name);
  if (!path) return notFound();
  return serveFile(path, request, {
    "content-disposition": `inline; filename="${ref.name}"`,
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
  });
}

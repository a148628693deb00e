import { submitJobBody } from "../../jobs/submit.ts";
import { errorBody } from "../../api/error-body.ts";
import { ApiError } from "../../errors.ts";
import { requestIdOf } from "../../api/request-id.ts";
import { PRICE_CENTS, formatUsd } from "../../billing/pricing.ts";
import type { AppContext } from "../../api/context.ts";
import { presentJob } from "../../jobs/present.ts";
import { CAPTION_STYLES, DEFAULT_CAPTION_STYLE } from "../../pipeline/render/captions.ts";
import { presentUpload } from "../../uploads/present.ts";
import { esc } from "../html.ts";
import { frame } from "./pages.ts";
import { dashboardRouter, html } from "./router.ts";
import { UPLOAD_SCRIPT } from "./upload-script.ts";

/** The page runs one script of our own (served below) and talks only to this appliance. */
const UPLOAD_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

function uploadPage(f: Parameters<typeof frame>[0]): string {
  const styles = CAPTION_STYLES.map((s) => `<option value="${s}"${s === DEFAULT_CAPTION_STYLE ? " selected" : ""}>${s}</option>`).join("");
  return frame(
    f,
    "Upload an episode",
    `<style>
#drop{display:block;border:2px dashed #8888;border-radius:12px;padding:40px 20px;text-align:center;cursor:pointer;transition:background .15s}
#drop.over{background:#5b3df522;border-color:var(--accent)}#drop strong{font-size:1.15rem}
progress{width:100%;height:18px;accent-color:var(--accent)}.row{display:flex;gap:16px;flex-wrap:wrap;align-items:center;margin:14px 0}
</style>
<form id="upload" class="card" data-csrf="${esc(f.csrf)}">
  <label id="drop" for="file"><strong>Drop an audio or video file here</strong><br><span class="muted">or click to choose one · up to the appliance's media limit</span>
    <input id="file" type="file" accept="audio/*,video/*" hidden></label>
  <p id="chosen" class="muted" aria-live="polite">No file chosen.</p>
  <div class="row">
    <label>Environment <select name="env"><option value="live">live: ${esc(formatUsd(PRICE_CENTS.upload!))} after the free jobs</option><option value="test">sandbox: fixtures, free</option></select></label>
    <label>Captions <select name="caption_style">${styles}</select></label>
    <label><input type="checkbox" name="include_trailer"> Trailer (video sources)</label>
  </div>
  <button id="send" type="submit" disabled>Upload and create clips</button>
  <div id="progress-row" hidden><p><progress id="progress" max="100" value="0"></progress></p><p id="progress-text" class="muted" aria-live="polite"></p></div>
  <div id="result" aria-live="polite"></div>
</form>
<p class="muted">The file streams to the appliance and a job starts as soon as it has arrived. Scripts can do the same with <code>POST /v1/uploads</code> (resumable with tus); see docs/api.md.</p>
<script src="/dashboard/upload.js" defer></script>`,
  );
}

const json = (body: unknown, status: number) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store" } });

/**
 * The dashboard's Upload page: drag a file in, watch it go up (the browser's upload progress), and a
 * job is submitted for it in the chosen environment. The file goes through the same UploadService
 * and job submission as POST /v1/uploads and POST /v1/jobs, so the same limits, prices and errors apply.
 */
export function registerUploadDashboard(app: Parameters<typeof dashboardRouter>[0], ctx: AppContext): void {
  const { view, stream } = dashboardRouter(app, ctx);

  view("/dashboard/upload", (_s, f) => html(uploadPage(f), 200, { "content-security-policy": UPLOAD_PAGE_CSP }));

  app.get("/dashboard/upload.js", () => new Response(UPLOAD_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" } }));

  // Query: filename, env (live|test), caption_style, include_trailer=1; body: the file.
  stream("/dashboard/upload", async (s, request) => {
    const q = new URL(request.url).searchParams;
    const owner = { orgId: s.orgId, env: q.get("env") === "test" ? ("test" as const) : ("live" as const) };
    const requestId = requestIdOf(request);
    try {
      const declared = request.headers.get("content-length");
      const filename = (q.get("filename") ?? "").slice(0, 255) || null;
      const upload = await ctx.uploads.receiveRaw(request.body, declared === null ? null : Number(declared), owner, filename);
      const options: Record<string, unknown> = {};
      if (q.get("caption_style")) options.caption_style = q.get("caption_style");
      if (q.get("include_trailer") === "1") options.include_trailer = true;
      const { job } = submitJobBody(ctx, owner, { source: { type: "upload", upload_id: upload.id }, options }, { requestId });
      return json({ upload: presentUpload(upload, upload.size ?? 0), job: presentJob(job, ctx.present) }, 201);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return json(errorBody(err, requestId), err.status);
    }
  });
}

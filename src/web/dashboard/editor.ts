import type { Elysia } from "elysia";
import type { Scope } from "../../accounts/scope.ts";
import type { AppContext } from "../../api/context.ts";
import { parseOrThrow } from "../../validate.ts";
import type { JobRow } from "../../db/schema.ts";
import { ApiError } from "../../errors.ts";
import { presentJob } from "../../jobs/present.ts";
import { ClipCreateSchema, TranscriptCorrectionSchema } from "../../jobs/schema.ts";
import { getJobById } from "../../jobs/store.ts";
import { checkpointWords } from "../../pipeline/render/rerender.ts";
import type { Word } from "../../pipeline/types.ts";
import type { Flash } from "./pages.ts";
import { dashboardRouter, redirect } from "./router.ts";
import { EDITOR_SCRIPT } from "./editor-script.ts";

/** The job page runs one script of our own (editor.js) and fetches only from this appliance. */
export const EDITOR_PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** The editor's post/redirect/get messages: fixed codes, never text from the request. */
export const EDITOR_FLASH: Record<string, Flash> = {
  corrected: { notice: "Correction saved. Clips whose captions changed are being rendered again." },
  correction_none: { notice: "Nothing to change: no words matched, or they already read that way." },
  correction_invalid: { error: "Correction refused: give the words to find and what to put instead (a letter or digit, at most 200 characters), or a line's new text." },
  speakers_corrected: { notice: "Speakers saved. Audiogram clips where the voice talks are being rendered again." },
  speaker_invalid: { error: "Speaker change refused: a name of at most 60 characters without <, >, { or }, not one another voice already has (to say two voices are one person, use “Same person as”)." },
  clip_added: { notice: "Clip added: it is being rendered." },
  clip_exists: { notice: "You already made this clip; nothing new was added." },
  clip_invalid: { error: "Clip refused: choose a last sentence after the first, with a finished sentence between them, and a title of at most 70 characters." },
  clip_limit: { error: "This job already has as many clips of your own as it may; delete one first." },
  clip_deleted: { notice: "Clip deleted, with its files." },
  clip_not_found: { error: "No such clip in this job." },
  renders_busy: { error: "Too many renders are queued for this organisation; try again once some finish." },
  disk_full: { error: "The appliance's data disk is nearly full; nothing was changed." },
  editor_unavailable: { error: "This job cannot be edited: it is not complete, or its transcript checkpoint is gone." },
};

const flashFor = (err: ApiError, invalid: string): string =>
  err.code === "invalid_body" ? invalid
  : err.code === "clip_limit_reached" ? "clip_limit"
  : err.code === "too_many_queued_renders" ? "renders_busy"
  : err.code === "insufficient_storage" ? "disk_full"
  : err.code === "not_found" && err.param === "clip_id" ? "clip_not_found"
  : "editor_unavailable";

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: { "content-type": "application/json", "cache-control": "no-store", "x-content-type-options": "nosniff" } });

/**
 * The job page's editing actions (issue #32), each the dashboard's form over the same domain call
 * as the API's extension (corrections, own clips, deletes; moving a clip's edges is the re-render
 * form in routes.ts), scoped to the session's organisation and the job's world, and the JSON the
 * page polls for render progress.
 */
export function registerEditorDashboard(app: Elysia, ctx: AppContext): void {
  const { view, action } = dashboardRouter(app, ctx);
  const ownJob = (orgId: string, id: string): JobRow | undefined => {
    const row = getJobById(ctx.db, id);
    return row && row.orgId === orgId ? row : undefined;
  };
  const scopeOf = (row: JobRow): Scope => ({ orgId: row.orgId, env: row.env });
  const pagePath = (id: string) => `/dashboard/jobs/${encodeURIComponent(id)}`;
  const back = (id: string, flash: string) => redirect(`${pagePath(id)}?flash=${flash}#editor`);

  app.get("/dashboard/editor.js", () => new Response(EDITOR_SCRIPT, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache", "x-content-type-options": "nosniff" } }));

  view("/dashboard/jobs/:id/renders.json", (s, _f, _r, params) => {
    const row = ownJob(s.orgId, params.id!);
    if (!row) return new Response(JSON.stringify({ error: "not_found" }), { status: 404, headers: { "content-type": "application/json", "cache-control": "no-store" } });
    const clips = presentJob(row, ctx.present).output?.clips ?? [];
    return json({
      status: row.status,
      clips: clips.map((c) => ({ id: c.id, rank: c.rank, start_time: c.start_time, end_time: c.end_time, render: c.render ? { status: c.render.status, error: c.render.error } : null, rendered_urls: c.rendered_urls, captions_srt_url: c.captions_srt_url ?? null })),
    });
  });

  action("/dashboard/jobs/:id/corrections", async (s, form, params) => {
    const row = ownJob(s.orgId, params.id!);
    if (!row) return redirect("/dashboard/jobs");
    const find = form.get("find");
    // "Said by" names a voice from the list, or someone the transcript missed.
    const speaker = form.get("new_speaker")?.trim() || form.get("speaker");
    const sameAs = form.get("same_as");
    const body: Record<string, unknown> =
      speaker !== null
        ? { speakers: [sameAs !== null ? { speaker, same_as: sameAs } : form.get("start_time") !== null ? { speaker, start_time: Number(form.get("start_time")), end_time: Number(form.get("end_time")) } : { speaker, name: form.get("name") ?? "" }] }
        : find !== null
          ? { replace: [{ find, with: form.get("with") ?? "" }], ...(form.get("add_to_vocabulary") ? { add_to_vocabulary: true } : {}) }
          : { words: [{ start_time: Number(form.get("start_time")), end_time: Number(form.get("end_time")), text: form.get("text") ?? "" }] };
    try {
      const req = parseOrThrow(TranscriptCorrectionSchema, body, () => "invalid_body");
      ctx.disk.require();
      await ctx.corrections.prepare(scopeOf(row), row.id);
      const { summary } = await ctx.corrections.apply(scopeOf(row), row.id, req);
      return back(row.id, summary.changes === 0 ? "correction_none" : speaker !== null ? "speakers_corrected" : "corrected");
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return back(row.id, flashFor(err, speaker !== null ? "speaker_invalid" : "correction_invalid"));
    }
  });

  action("/dashboard/jobs/:id/clips", async (s, form, params) => {
    const row = ownJob(s.orgId, params.id!);
    if (!row) return redirect("/dashboard/jobs");
    const title = form.get("title")?.trim();
    const style = form.get("caption_style")?.trim();
    const body = { start_time: Number(form.get("start_time")), end_time: Number(form.get("end_time")), ...(title ? { title } : {}), ...(style ? { caption_style: style } : {}) };
    try {
      const req = parseOrThrow(ClipCreateSchema, body, () => "invalid_body");
      ctx.disk.require();
      await ctx.editorClips.prepare(scopeOf(row), row.id);
      const { created } = ctx.editorClips.create(scopeOf(row), row.id, req);
      return back(row.id, created ? "clip_added" : "clip_exists");
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return back(row.id, flashFor(err, "clip_invalid"));
    }
  });

  action("/dashboard/jobs/:id/clips/:clip_id/delete", async (s, _form, params) => {
    const row = ownJob(s.orgId, params.id!);
    if (!row) return redirect("/dashboard/jobs");
    try {
      await ctx.editorClips.remove(scopeOf(row), row.id, params.clip_id!);
      return back(row.id, "clip_deleted");
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return back(row.id, flashFor(err, "clip_not_found"));
    }
  });
}

/** The words the job page's editor shows: a complete live job's checkpointed (and corrected) transcript. */
export async function editorWords(ctx: AppContext, row: JobRow): Promise<Word[] | undefined> {
  if (row.env !== "live" || row.status !== "complete") return undefined;
  await ctx.renders.prepare({ orgId: row.orgId, env: row.env }, row.id);
  return checkpointWords(ctx.config.dataDir, row.id);
}

import { ENVS } from "../../accounts/scope.ts";
import { getVocabulary, setVocabulary } from "../../accounts/vocabulary.ts";
import type { AppContext } from "../../api/context.ts";
import { VocabularySchema } from "../../jobs/vocabulary-schema.ts";
import { MAX_VOCABULARY_ENTRIES, MAX_VOCABULARY_ENTRY_LENGTH, normaliseVocabulary } from "../../pipeline/transcribe/vocabulary.ts";
import { esc } from "../html.ts";
import { csrfField, date, frame, worldName, type Flash } from "./pages.ts";
import { dashboardRouter, redirect } from "./router.ts";

/**
 * The dashboard's Vocabulary page: the organisation's names and terms, one list per world (the same
 * lists as GET/PUT /v1/vocabulary), one entry per line. Every live job of the world is given its list,
 * merged with the job's own `options.vocabulary`.
 */
export function registerVocabularyDashboard(app: Parameters<typeof dashboardRouter>[0], ctx: AppContext): void {
  const { view, action } = dashboardRouter(app, ctx);
  const flashOf = (request: Request): Flash => {
    const code = new URL(request.url).searchParams.get("flash");
    if (code === "saved") return { notice: "Vocabulary saved: jobs from now on are given it." };
    if (code === "invalid") return { error: `Not saved: at most ${MAX_VOCABULARY_ENTRIES} entries of at most ${MAX_VOCABULARY_ENTRY_LENGTH} characters, one per line.` };
    return {};
  };

  view("/dashboard/vocabulary", (s, f, request) => {
    const forms = ENVS.map((env) => {
      const v = getVocabulary(ctx.db, { orgId: s.orgId, env });
      return `<section class="card" data-vocabulary="${env}"><h2>${worldName(env)}</h2>
<form method="post" action="/dashboard/vocabulary">${csrfField(f.csrf)}<input type="hidden" name="env" value="${env}">
<label>One name or term per line (${v.entries.length} of ${MAX_VOCABULARY_ENTRIES})<br>
<textarea name="entries" rows="8" cols="48" spellcheck="false" aria-label="${worldName(env)} vocabulary">${esc(v.entries.join("\n"))}</textarea></label>
<p><button type="submit">Save ${worldName(env)} vocabulary</button> <span class="muted">${v.updatedAt === null ? "never saved" : `saved ${date(v.updatedAt)}`}</span></p></form></section>`;
    });
    const intro = `<p class="muted">Hosts, guests, the show's name and recurring terms: the recogniser is prompted with them and near-miss spellings in the transcript are corrected to them ("Kyle Gas" becomes "Kyle Gass"). A job's own <code>options.vocabulary</code> is added to its world's list. Also <code>GET</code>/<code>PUT /v1/vocabulary</code>.</p>`;
    return frame(f, "Vocabulary", intro + forms.join(""), flashOf(request));
  });

  action("/dashboard/vocabulary", (s, form) => {
    const env = form.get("env") === "live" ? "live" : "test";
    const parsed = VocabularySchema.safeParse(normaliseVocabulary((form.get("entries") ?? "").split(/\r?\n/)));
    if (!parsed.success) return redirect("/dashboard/vocabulary?flash=invalid");
    setVocabulary(ctx.db, ctx.clock, { orgId: s.orgId, env }, parsed.data);
    return redirect("/dashboard/vocabulary?flash=saved");
  });
}

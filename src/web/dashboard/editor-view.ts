import type { Clip, Job } from "../../jobs/schema.ts";
import { CAPTION_STYLES } from "../../pipeline/render/captions.ts";
import { sentenceEdges, type SentenceEdges as Edges } from "../../pipeline/highlights/clip-bounds.ts";
import { attachesToPrevious, type Sentence } from "../../pipeline/highlights/sentences.ts";
import { DOUBT_BELOW } from "../../pipeline/transcribe/confidence.ts";
import type { Word } from "../../pipeline/types.ts";
import { esc, fmtTime } from "../html.ts";
import { csrfField, type Frame } from "./pages.ts";

/**
 * The job page's editor (issue #32): each clip's sentences with buttons that move its edges by one
 * sentence, a form per sentence to correct its words, find and replace across the episode, a new
 * clip from a span of the transcript, and deleting a clip. Pure markup from the job and its words;
 * every form posts to the dashboard's editor actions (editor.ts) with the session's CSRF token.
 */

const EPS = 0.0005;

/** The bounds a clip has or is about to have: a pending render's, else its own. */
export function effectiveBounds(c: Clip): { start: number; end: number } {
  return c.render && c.render.status !== "failed" ? { start: c.render.start_time, end: c.render.end_time } : { start: c.start_time, end: c.end_time };
}

/** The four one-sentence moves of a clip's edges, each the new [start, end] or undefined where there is none. */
export function edgeMoves(e: Edges, bounds: { start: number; end: number }) {
  const { start, end } = bounds;
  const earlierStart = e.starts.filter((s) => s < start - EPS).at(-1);
  const laterStart = e.starts.find((s) => s > start + EPS && s < end - EPS);
  const laterEnd = e.ends.find((x) => x > end + EPS);
  const earlierEnd = e.ends.filter((x) => x < end - EPS && x > start + EPS).at(-1);
  return {
    extendStart: earlierStart === undefined ? undefined : [earlierStart, end],
    shortenStart: laterStart === undefined ? undefined : [laterStart, end],
    extendEnd: laterEnd === undefined ? undefined : [start, laterEnd],
    shortenEnd: earlierEnd === undefined ? undefined : [start, earlierEnd],
  } as Record<"extendStart" | "shortenStart" | "extendEnd" | "shortenEnd", [number, number] | undefined>;
}

/** The window a correction of one sentence names: the middles of its first and last words, which no neighbour's middle falls between. */
export function sentenceWindow(words: Word[], s: Sentence): { start_time: number; end_time: number } {
  const mid = (w: Word) => (w.start + w.end) / 2;
  const a = Math.floor(mid(words[s.firstWord]!) * 10000) / 10000;
  const b = Math.ceil(mid(words[s.lastWord]!) * 10000) / 10000;
  return { start_time: a, end_time: Math.max(b, a + 0.0001) };
}

/** A sentence's words as HTML, each word the recogniser was unsure of marked with its probability. */
export function sentenceHtml(words: Word[], s: Sentence): string {
  let out = "";
  let before = "";
  for (let i = s.firstWord; i <= s.lastWord; i++) {
    const w = words[i]!;
    const token = w.word.trim();
    if (!token) continue;
    const text = esc(token);
    const marked =
      typeof w.p === "number" && w.p < DOUBT_BELOW
        ? `<mark class="unsure" data-p="${w.p.toFixed(2)}" title="The recogniser was unsure of this word (probability ${w.p.toFixed(2)})">${text}</mark>`
        : text;
    out += (out && !attachesToPrevious(token, before) ? " " : "") + marked;
    before = token;
  }
  return out;
}

const secs = (x: number) => x.toFixed(3).replace(/\.?0+$/, "");
const label = (x: number) => `${fmtTime(x)} (${x.toFixed(1)} s)`;

function moveForm(f: Frame, jobId: string, c: Clip, to: [number, number] | undefined, text: string, name: string): string {
  const action = `/dashboard/jobs/${esc(jobId)}/clips/${esc(c.id)}/renders`;
  if (!to) return `<button type="button" disabled aria-label="${esc(`${text} (clip ${c.rank}): no sentence there`)}">${esc(text)}</button>`;
  return `<form class="inline" method="post" action="${action}" data-move="${name}">${csrfField(f.csrf)}<input type="hidden" name="start_time" value="${secs(to[0])}"><input type="hidden" name="end_time" value="${secs(to[1])}"><button type="submit" class="plain" aria-label="${esc(`${text} (clip ${c.rank})`)}">${esc(text)}</button></form>`;
}

/** The voices the transcript shows (in order of first speech), which of them are names, and how a word's label shows (its name, else the label). */
interface Cast {
  voices: string[];
  named: Set<string>;
  shown: (label: string) => string;
}

function castOf(job: Job): Cast {
  const names = new Map((job.output?.speaker_names ?? []).map((n) => [n.speaker, n.name]));
  return { voices: [...new Set((job.output?.transcript ?? []).map((s) => s.speaker))], named: new Set(names.values()), shown: (label) => names.get(label) ?? label };
}

function lineEditor(f: Frame, jobId: string, words: Word[], s: Sentence, clipRank: number, cast: Cast): string {
  const w = sentenceWindow(words, s);
  const id = `line-${clipRank}-${s.index}`;
  const action = `/dashboard/jobs/${esc(jobId)}/corrections`;
  const times = `<input type="hidden" name="start_time" value="${w.start_time}"><input type="hidden" name="end_time" value="${w.end_time}">`;
  const now = cast.shown(s.speaker);
  // Who said it: the sentence's words go to another voice (a speaker correction).
  const saidBy = cast.voices.length
    ? `<form method="post" action="${action}" data-said-by="${s.index}">${csrfField(f.csrf)}${times}
<label for="${id}-by">Said by</label><select id="${id}-by" name="speaker">${[...new Set([now, ...cast.voices])].map((v) => `<option value="${esc(v)}"${v === now ? " selected" : ""}>${esc(v)}</option>`).join("")}</select>
<label for="${id}-new">or someone the transcript missed (their name)</label><input id="${id}-new" name="new_speaker" maxlength="60">
<button type="submit">Save speaker</button></form>`
    : "";
  return `<details class="edit"><summary>Edit line<span class="sr"> ${s.index + 1} of clip ${clipRank}</span></summary>
<form method="post" action="${action}" data-line="${s.index}">${csrfField(f.csrf)}${times}
<label for="${id}">What was said (${esc(fmtTime(s.start))}–${esc(fmtTime(s.end))})</label><textarea id="${id}" name="text" rows="2" maxlength="1000">${esc(s.text)}</textarea>
<button type="submit">Save correction</button></form>${saidBy}</details>`;
}

export function renderStatus(c: Clip): string {
  const st = c.render?.status;
  const text = !st ? "original render" : st === "queued" ? "queued for rendering" : st === "rendering" ? "rendering…" : st === "complete" ? "rendered" : `render failed${c.render?.error ? `: ${c.render.error}` : ""}`;
  return `<span data-render-state="${st ?? "none"}">${esc(text)}</span>${st === "queued" || st === "rendering" ? ' <progress aria-label="Render progress"></progress>' : ""}`;
}

export const clipLinks = (c: Clip): string => {
  const links = Object.entries(c.rendered_urls).map(([dest, url]) => `<a href="${esc(url)}">${esc(dest)} video</a>`);
  if (c.captions_srt_url) links.push(`<a href="${esc(c.captions_srt_url)}">captions (SRT)</a>`);
  return links.join(" · ");
};

/**
 * The brand preview: the clip's covers, drawn with the job's brand (logo, colours, font, the title
 * band). A job keeps the brand it was first rendered with, so these show how every render the editor
 * queues will look. Served by path from this origin: the page's CSP allows images from itself only,
 * and the public URL may name another host for the same appliance.
 */
export function coverPreview(c: Clip): string {
  const covers = Object.entries(c.thumbnail_urls ?? {});
  if (!covers.length) return "";
  const img = ([dest, url]: [string, string]) =>
    `<img src="${esc(new URL(url).pathname)}" alt="Cover of clip ${c.rank} for ${esc(dest)}, as rendered with the brand" loading="lazy" data-cover="${esc(dest)}">`;
  return `<figure class="covers">${covers.map(img).join("")}<figcaption class="muted">Brand preview: the covers, as this job's renders look (its brand kit is kept from its first render).</figcaption></figure>`;
}

function clipCard(f: Frame, jobId: string, c: Clip, words: Word[] | undefined, e: Edges | undefined, cast: Cast): string {
  const b = effectiveBounds(c);
  let body = "";
  if (words && e) {
    const inside = e.sentences.filter((s) => s.start >= b.start - EPS && s.end <= b.end + EPS);
    const beforeS = e.sentences.filter((s) => s.end <= b.start + EPS).at(-1);
    const afterS = e.sentences.find((s) => s.start >= b.end - EPS);
    const line = (s: Sentence, where: "in" | "before" | "after") =>
      `<li data-sentence="${s.index}" class="${where === "in" ? "in" : "out"}"><span class="t">${esc(fmtTime(s.start))}</span> <span class="words">${sentenceHtml(words, s)}</span>${where === "in" ? lineEditor(f, jobId, words, s, c.rank, cast) : ` <span class="muted">(${where} the clip)</span>`}</li>`;
    const moves = edgeMoves(e, b);
    body = `<ol class="sentences">${beforeS ? line(beforeS, "before") : ""}${inside.map((s) => line(s, "in")).join("")}${afterS ? line(afterS, "after") : ""}</ol>
<div class="moves" role="group" aria-label="Clip ${c.rank} edges">${moveForm(f, jobId, c, moves.extendStart, "Start a sentence earlier", "extend-start")}${moveForm(f, jobId, c, moves.shortenStart, "Start a sentence later", "shorten-start")}${moveForm(f, jobId, c, moves.shortenEnd, "End a sentence earlier", "shorten-end")}${moveForm(f, jobId, c, moves.extendEnd, "End a sentence later", "extend-end")}</div>`;
  } else {
    body = `<p class="muted">${esc(c.transcript_text)}</p>`;
  }
  return `<article class="card clip-edit" id="edit-clip-${c.rank}" data-editor-clip="${c.rank}" data-clip-id="${esc(c.id)}" aria-labelledby="edit-clip-${c.rank}-h">
<h3 id="edit-clip-${c.rank}-h">#${c.rank} ${esc(c.title ?? c.hook)}${c.origin === "editor" ? ' <span class="tag">yours</span>' : ""}</h3>
<p class="muted"><span data-bounds>${b.start.toFixed(2)}–${b.end.toFixed(2)} s</span> · <span data-render-of="${esc(c.id)}" aria-live="polite">${renderStatus(c)}</span></p>
<p data-links-of="${esc(c.id)}">${clipLinks(c)}</p>
${coverPreview(c)}
${body}
<details class="danger"><summary>Delete clip<span class="sr"> ${c.rank}</span>…</summary><form method="post" action="/dashboard/jobs/${esc(jobId)}/clips/${esc(c.id)}/delete">${csrfField(f.csrf)}<p>The clip and its files are removed for good.</p><button type="submit" class="danger">Delete clip ${c.rank}</button></form></details>
</article>`;
}

function newClipForm(f: Frame, jobId: string, words: Word[], e: Edges): string {
  const startSet = new Set(e.starts);
  const endSet = new Set(e.ends);
  const opt = (s: Sentence, value: number) => `<option value="${secs(value)}">${esc(`${s.index + 1}. ${fmtTime(value)} ${s.text.length > 40 ? `${s.text.slice(0, 39)}…` : s.text}`)}</option>`;
  const froms = e.sentences.filter((s) => startSet.has(s.start)).map((s) => opt(s, s.start)).join("");
  const tos = e.sentences.filter((s) => endSet.has(s.end)).map((s) => opt(s, s.end)).join("");
  const styles = CAPTION_STYLES.map((st) => `<option value="${st}">${st}</option>`).join("");
  const transcript = e.sentences
    .map((s) => `<li data-sentence="${s.index}" data-start="${secs(s.start)}" data-end="${secs(s.end)}"><span class="t">${esc(fmtTime(s.start))}</span> <span class="words">${sentenceHtml(words, s)}</span></li>`)
    .join("");
  return `<section class="card" id="new-clip-section" aria-labelledby="new-clip-h"><h2 id="new-clip-h">Transcript and a clip of your own</h2>
<p class="muted">Select sentences in the transcript (or choose them below) and make a clip of them. Its edges snap to whole sentences; it is ranked after the others and rendered like them, at no charge.</p>
<ol id="transcript" class="sentences transcript">${transcript}</ol>
<form method="post" action="/dashboard/jobs/${esc(jobId)}/clips" id="new-clip">${csrfField(f.csrf)}
<p id="selection-note" class="muted" aria-live="polite"></p>
<div class="row"><label>From <select name="start_time" id="new-clip-from">${froms}</select></label>
<label>To <select name="end_time" id="new-clip-to">${tos}</select></label></div>
<div class="row"><label>Title (optional) <input name="title" maxlength="70" id="new-clip-title"></label>
<label>Captions <select name="caption_style">${styles}</select></label></div>
<button type="submit">Make clip</button></form></section>`;
}

/**
 * The voices the transcript shows, each with a form to name it and, beside another voice, one to say
 * they are the same person: the speaker corrections of the API.
 */
function speakersCard(f: Frame, job: Job, { voices, named }: Cast): string {
  if (!voices.length) return "";
  const seconds = new Map<string, number>();
  for (const s of job.output?.transcript ?? []) seconds.set(s.speaker, (seconds.get(s.speaker) ?? 0) + Math.max(0, s.end - s.start));
  const total = [...seconds.values()].reduce((a, b) => a + b, 0) || 1;
  const action = `/dashboard/jobs/${esc(job.id)}/corrections`;
  const rows = voices
    .map((v) => {
      const others = voices.filter((o) => o !== v).map((o) => `<option value="${esc(o)}">${esc(o)}</option>`).join("");
      const merge = others
        ? `<form method="post" action="${action}" class="row">${csrfField(f.csrf)}<input type="hidden" name="speaker" value="${esc(v)}"><label>Same person as <select name="same_as" aria-label="${esc(v)} is the same person as">${others}</select></label><button type="submit">Merge</button></form>`
        : "";
      return `<li><strong>${esc(v)}</strong> <span class="muted">${Math.round((100 * seconds.get(v)!) / total)}% of the talk</span>
<form method="post" action="${action}" class="row">${csrfField(f.csrf)}<input type="hidden" name="speaker" value="${esc(v)}"><label>Name <input name="name" required maxlength="60" value="${named.has(v) ? esc(v) : ""}" aria-label="Name for ${esc(v)}"></label><button type="submit">Save name</button></form>
${merge}</li>`;
    })
    .join("");
  return `<section class="card" id="speakers" aria-labelledby="sp-h"><h2 id="sp-h">Speakers</h2>
<p class="muted">Name a voice, or say that two voices are one person the speaker models split in two: the transcript, captions, audiogram cards, show notes, share page and exports follow. Audiogram clips where the voice talks are rendered again (never billed).</p>
<ul class="voices">${rows}</ul></section>`;
}

/** The editor section of a complete job's page. `words` is undefined where the job has none (sandbox, or a checkpoint that is gone). */
export function editorSection(f: Frame, job: Job, words: Word[] | undefined): string {
  if (!job.output) return "";
  const e = words?.length ? sentenceEdges(words) : undefined;
  const replace = `<form class="card" method="post" action="/dashboard/jobs/${esc(job.id)}/corrections" id="find-replace" aria-labelledby="fr-h">${csrfField(f.csrf)}<h2 id="fr-h">Find and replace</h2>
<p class="muted">Whole words, any case, across the transcript, every clip's captions and copy, the show notes and the exports. Clips whose captions change are re-rendered.</p>
<div class="row"><label>Find <input name="find" required maxlength="200" id="fr-find"></label><label>Replace with <input name="with" required maxlength="200" id="fr-with"></label>
<label><input type="checkbox" name="add_to_vocabulary" value="1"> Add to the vocabulary</label></div>
<button type="submit">Replace everywhere</button></form>`;
  const note = e
    ? `<p class="muted">Words the recogniser was unsure of are <mark class="unsure">marked</mark>: check those first. Each change renders the clip again (never billed); the status updates here as it goes.</p>`
    : `<p class="muted">This job has no word timings (a sandbox job, or its transcript checkpoint is gone): find and replace and deleting clips still work.</p>`;
  const cast = castOf(job);
  const cards = job.output.clips.map((c) => clipCard(f, job.id, c, words, e, cast)).join("");
  return `${EDITOR_STYLE}<section id="editor" data-job="${esc(job.id)}" aria-labelledby="editor-h"><h2 id="editor-h">Editor</h2>${note}
${replace}
${speakersCard(f, job, cast)}
<div class="clip-cards">${cards}</div>
${words && e ? newClipForm(f, job.id, words, e) : ""}
</section><script src="/dashboard/editor.js" defer></script>`;
}

const EDITOR_STYLE = `<style>
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
#editor .row{display:flex;gap:12px;flex-wrap:wrap;align-items:end;margin:10px 0}
#editor label{display:inline-flex;flex-direction:column;gap:4px}
#editor .row label:has(input[type=checkbox]){flex-direction:row;align-items:center}
ol.sentences{padding-left:0;list-style:none;margin:10px 0}ol.sentences li{padding:6px 0;border-bottom:1px solid #8882}
ol.sentences li.out{color:var(--muted)}ol.sentences .t{font-variant-numeric:tabular-nums;color:var(--muted);font-size:.85rem;margin-right:4px}
mark.unsure{background:#f5c21155;color:inherit;border-bottom:2px dotted #b58a00;border-radius:3px;padding:0 2px}
.clip-cards{display:grid;gap:16px;margin:16px 0}
.covers{display:flex;gap:8px;align-items:flex-end;flex-wrap:wrap;margin:8px 0}.covers img{height:160px;width:auto;max-width:100%;border-radius:6px;border:1px solid #8884}.covers figcaption{flex-basis:100%;font-size:.85rem}
.moves{display:flex;gap:8px;flex-wrap:wrap;margin:8px 0}.moves button:disabled{opacity:.45;cursor:not-allowed;background:transparent;color:var(--muted);border:1px dashed #8886}
details.edit{margin-top:4px}details.edit form{display:grid;gap:6px;margin:6px 0}
details summary{cursor:pointer;color:var(--accent)}
textarea{font:inherit;width:100%;padding:6px 8px;border-radius:8px;border:1px solid #8886;background:var(--card);color:var(--fg)}
button.danger{background:#b3261e}details.danger{margin-top:10px}details.danger summary{color:#b3261e}
ul.voices{list-style:none;padding-left:0;margin:8px 0}ul.voices li{padding:8px 0;border-bottom:1px solid #8882}ul.voices form{margin:6px 0}
ol.transcript{max-height:420px;overflow:auto;border:1px solid #8883;border-radius:8px;padding:4px 10px}
#editor :focus-visible,#clips :focus-visible{outline:3px solid var(--accent);outline-offset:2px}
#editor select{max-width:100%}
@media (max-width:640px){main{padding:12px}#clips thead{display:none}#clips tr,#clips td{display:block}#clips tr{border-bottom:1px solid #8884;padding:6px 0}#clips td{border:0;padding:3px 0}
#clips input{max-width:7em}.moves{display:grid;grid-template-columns:1fr 1fr}.moves form,.moves button{width:100%}#editor label{width:100%}#editor input:not([type=checkbox]){width:100%}}
</style>`;

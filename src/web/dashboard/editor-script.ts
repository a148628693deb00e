/**
 * The job page editor's browser script, served as /dashboard/editor.js (the page's CSP allows
 * scripts from this origin only). Two things the server-rendered forms cannot do: follow renders
 * without a reload (polling the job's renders.json while any is queued or rendering), and turn a
 * text selection in the transcript into the new-clip form's From/To choice. Everything else is
 * plain forms, so the editor works without it.
 */
export const EDITOR_SCRIPT = String.raw`"use strict";
(() => {
  const editor = document.getElementById("editor");
  if (!editor) return;
  const job = editor.dataset.job;
  const escape = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
  const PENDING = ["queued", "rendering"];

  function statusHtml(render) {
    const st = render ? render.status : null;
    const text = !st ? "original render" : st === "queued" ? "queued for rendering" : st === "rendering" ? "rendering…" : st === "complete" ? "rendered" : "render failed" + (render.error ? ": " + render.error : "");
    return '<span data-render-state="' + (st || "none") + '">' + escape(text) + "</span>" + (PENDING.includes(st) ? ' <progress aria-label="Render progress"></progress>' : "");
  }
  function linksHtml(c) {
    const links = Object.keys(c.rendered_urls).map((d) => '<a href="' + escape(c.rendered_urls[d]) + '">' + escape(d) + " video</a>");
    if (c.captions_srt_url) links.push('<a href="' + escape(c.captions_srt_url) + '">captions (SRT)</a>');
    return links.join(" · ");
  }
  const pending = () => Array.from(editor.querySelectorAll("[data-render-state]")).some((el) => PENDING.includes(el.dataset.renderState));

  let timer = null;
  async function poll() {
    timer = null;
    let body = null;
    try {
      const res = await fetch("/dashboard/jobs/" + encodeURIComponent(job) + "/renders.json", { credentials: "same-origin", cache: "no-store" });
      if (res.ok) body = await res.json();
    } catch (_) {}
    if (body) {
      for (const c of body.clips) {
        // The clips table above the editor shows the same state.
        const cell = document.querySelector('#clips tr[data-clip="' + c.rank + '"] [data-render]');
        if (cell && c.render && cell.dataset.render !== c.render.status) {
          cell.dataset.render = c.render.status;
          cell.textContent = c.render.status;
          // Its re-render form must hold the clip's new times, or a change of style alone would move it back.
          const form = document.querySelector('#clips form[data-rerender="' + c.rank + '"]');
          if (form && c.render.status === "complete") {
            form.start_time.value = c.start_time;
            form.end_time.value = c.end_time;
          }
        }
        const status = editor.querySelector('[data-render-of="' + CSS.escape(c.id) + '"]');
        if (!status) continue;
        const before = status.querySelector("[data-render-state]");
        const now = c.render ? c.render.status : "none";
        if (before && before.dataset.renderState === now) continue;
        status.innerHTML = statusHtml(c.render);
        const links = editor.querySelector('[data-links-of="' + CSS.escape(c.id) + '"]');
        if (links) links.innerHTML = linksHtml(c);
      }
    }
    if (pending()) timer = setTimeout(poll, 1500);
  }
  if (pending()) timer = setTimeout(poll, 1000);

  // A selection in the transcript picks the new clip's first and last sentences.
  const transcript = document.getElementById("transcript");
  const from = document.getElementById("new-clip-from");
  const to = document.getElementById("new-clip-to");
  const note = document.getElementById("selection-note");
  if (!transcript || !from || !to) return;
  const sentenceOf = (node) => {
    const el = node && (node.nodeType === 1 ? node : node.parentElement);
    const li = el && el.closest("li[data-sentence]");
    return li && transcript.contains(li) ? li : null;
  };
  // The option nearest to a time: the sentence edge the server would snap it to.
  const nearest = (select, t) => {
    let best = null;
    for (const o of select.options) if (best === null || Math.abs(Number(o.value) - t) < Math.abs(Number(best.value) - t)) best = o;
    return best;
  };
  const fmt = (t) => Math.floor(t / 60) + ":" + String(Math.round(t % 60)).padStart(2, "0");
  document.addEventListener("selectionchange", () => {
    const sel = document.getSelection();
    if (!sel || sel.isCollapsed || sel.rangeCount === 0) return;
    const range = sel.getRangeAt(0);
    const a = sentenceOf(range.startContainer);
    const b = sentenceOf(range.endContainer);
    if (!a || !b) return;
    const first = nearest(from, Number(a.dataset.start));
    const last = nearest(to, Number(b.dataset.end));
    if (!first || !last) return;
    first.selected = true;
    last.selected = true;
    note.textContent = "Selected sentences " + (Number(a.dataset.sentence) + 1) + "–" + (Number(b.dataset.sentence) + 1) + ": the clip will run " + fmt(Number(first.value)) + "–" + fmt(Number(last.value)) + ".";
  });
})();
`;

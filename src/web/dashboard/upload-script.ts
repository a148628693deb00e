/**
 * The Upload page's browser script, served as /dashboard/upload.js (the page's CSP allows scripts
 * from this origin only, never inline). XMLHttpRequest rather than fetch: only it reports upload
 * progress. The body is the File itself, which the browser streams from disk.
 */
export const UPLOAD_SCRIPT = String.raw`"use strict";
(() => {
  const form = document.getElementById("upload");
  const zone = document.getElementById("drop");
  const input = document.getElementById("file");
  const chosen = document.getElementById("chosen");
  const send = document.getElementById("send");
  const row = document.getElementById("progress-row");
  const bar = document.getElementById("progress");
  const text = document.getElementById("progress-text");
  const result = document.getElementById("result");
  let file = null;

  const mb = (n) => (n / 1048576).toFixed(1) + " MB";
  const show = (cls, html) => { result.className = cls; result.innerHTML = html; };
  const escape = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

  function pick(f) {
    if (!f) return;
    file = f;
    chosen.textContent = f.name + " · " + mb(f.size);
    send.disabled = false;
    show("", "");
  }

  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    pick(e.dataTransfer.files[0]);
  });
  input.addEventListener("change", () => pick(input.files[0]));

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    if (!file) return;
    const q = new URLSearchParams({ filename: file.name, env: form.env.value, caption_style: form.caption_style.value });
    if (form.include_trailer.checked) q.set("include_trailer", "1");
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/dashboard/upload?" + q.toString());
    xhr.setRequestHeader("x-csrf-token", form.dataset.csrf);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.upload.addEventListener("progress", (ev) => {
      if (!ev.lengthComputable) return;
      bar.value = (100 * ev.loaded) / ev.total;
      text.textContent = mb(ev.loaded) + " of " + mb(ev.total) + " sent (" + Math.floor(bar.value) + "%)";
    });
    xhr.upload.addEventListener("load", () => { text.textContent = "Uploaded; starting the job…"; });
    xhr.addEventListener("load", () => {
      let body = null;
      try { body = JSON.parse(xhr.responseText); } catch (_) {}
      send.disabled = false;
      if (xhr.status === 201 && body) {
        bar.value = 100;
        text.textContent = mb(body.upload.size) + " uploaded as " + body.upload.id;
        show("notice", "Job <code>" + escape(body.job.id) + "</code> is " + escape(body.job.status) + " (" + (body.job.livemode ? "live" : "sandbox") + "). Follow it on the <a href=\"/dashboard/jobs\">Jobs</a> page.");
      } else {
        show("error", escape(body && body.error ? body.error.message : "The upload failed (HTTP " + xhr.status + ")."));
      }
    });
    xhr.addEventListener("error", () => { send.disabled = false; show("error", "The connection was lost; nothing was submitted. Try again."); });
    send.disabled = true;
    row.hidden = false;
    bar.value = 0;
    show("", "");
    xhr.send(file);
  });
})();
`;

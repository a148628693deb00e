/** Escapes text for HTML element and attribute content. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

export const fmtTime = (s: number): string => {
  const t = Math.max(0, Math.round(s));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  const sec = String(t % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
};

/**
 * What every HTML page of the appliance sends (dashboard and guest share page alike): nothing may
 * frame it, nothing is sniffed, and the policy allows only what the pages use (inline styles,
 * same-origin images), plus `extraCsp` for the page's own needs (forms, players).
 */
export function htmlSecurityHeaders(extraCsp: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; ${extraCsp}`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
  };
}

export function page(title: string, body: string, extraHead = "", lang = "en"): string {
  return `<!doctype html>
<html lang="${esc(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title>
<style>
:root{color-scheme:light dark;--fg:#1b1b1f;--muted:#5d5d6b;--bg:#f6f6f8;--card:#fff;--accent:#5b3df5}
@media (prefers-color-scheme:dark){:root{--fg:#ececf1;--muted:#a0a0b0;--bg:#131318;--card:#1d1d25}}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:1100px;margin:0 auto;padding:24px}h1{font-size:1.6rem;margin:.2em 0}
.muted{color:var(--muted)}.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:20px}
.card{background:var(--card);border-radius:12px;padding:16px;box-shadow:0 1px 3px #0002}
video{width:100%;border-radius:8px;background:#000;max-height:520px}
a.btn{display:inline-block;margin:6px 8px 0 0;padding:6px 12px;border-radius:8px;background:var(--accent);color:#fff;text-decoration:none;font-size:.9rem}
.tag{display:inline-block;font-size:.75rem;padding:2px 8px;border-radius:99px;background:#5b3df522;color:var(--accent);margin-right:6px}
blockquote{margin:8px 0;padding-left:12px;border-left:3px solid var(--accent)}
</style>${extraHead}</head><body><main>${body}</main></body></html>`;
}

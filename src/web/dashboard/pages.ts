import { isoUtc } from "../../clock.ts";
import type { ApiKeyRow, CreditLotRow, HoldRow, JobRow, LedgerRow, ReceiptRow, TopupRow } from "../../db/schema.ts";
import type { Clip, Job } from "../../jobs/schema.ts";
import { CAPTION_STYLES } from "../../pipeline/render/captions.ts";
import { formatUsd, PRICE_CENTS, TOPUP_MAX_CENTS, TOPUP_MIN_CENTS, FREE_TIER_JOBS } from "../../billing/pricing.ts";
import type { WalletSummary } from "../../billing/wallet.ts";
import { esc, page } from "../html.ts";

/**
 * HTML for the developer dashboard. Pure functions from data to markup: no database, no request.
 * Every form carries the session's CSRF token (`csrfField`).
 */

export interface Section {
  path: string;
  label: string;
}

/**
 * The dashboard's navigation. Other areas add their page here and register its route beside the
 * billing ones (the webhook deliveries page belongs after "Jobs").
 */
export const DASHBOARD_SECTIONS: Section[] = [
  { path: "/dashboard", label: "Wallet" },
  { path: "/dashboard/topup", label: "Top up" },
  { path: "/dashboard/receipts", label: "Receipts" },
  { path: "/dashboard/keys", label: "API keys" },
  { path: "/dashboard/upload", label: "Upload" },
  { path: "/dashboard/jobs", label: "Jobs" },
  { path: "/dashboard/webhooks", label: "Webhooks" },
  { path: "/dashboard/feeds", label: "Feeds" },
  { path: "/dashboard/vocabulary", label: "Vocabulary" },
];

export type Flash = { notice?: string; error?: string };

export interface Frame {
  orgName: string;
  csrf: string;
  current: string;
}

const STYLE = `<style>
nav.dash{display:flex;gap:4px;flex-wrap:wrap;align-items:center;margin:8px 0 20px}
nav.dash a{padding:6px 12px;border-radius:8px;color:var(--fg);text-decoration:none}
nav.dash a[aria-current]{background:var(--accent);color:#fff}
nav.dash form{margin-left:auto}
table{width:100%;border-collapse:collapse;font-size:.92rem}th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #8883}
th{color:var(--muted);font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.stats{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:14px;margin-bottom:20px}
.stat b{display:block;font-size:1.6rem}.card{margin-bottom:20px}
button,input,select{font:inherit}button{padding:6px 14px;border-radius:8px;border:0;background:var(--accent);color:#fff;cursor:pointer}
button.plain{background:transparent;color:var(--accent);border:1px solid var(--accent)}
input,select{padding:6px 8px;border-radius:8px;border:1px solid #8886;background:var(--card);color:var(--fg)}
.notice{padding:10px 14px;border-radius:10px;background:#2a8a4a22;border:1px solid #2a8a4a66;margin-bottom:16px}
.error{padding:10px 14px;border-radius:10px;background:#c0303022;border:1px solid #c0303066;margin-bottom:16px}
code.secret{display:block;padding:10px;border-radius:8px;background:#0001;word-break:break-all;font-size:1rem}
pre{white-space:pre-wrap;background:#0001;padding:12px;border-radius:8px}
.inline{display:inline}
</style>`;

/** How the dashboard names a key's environment: the operator sees both worlds side by side. */
export const worldName = (env: "live" | "test"): string => (env === "live" ? "live" : "sandbox");

export const csrfField = (csrf: string): string => `<input type="hidden" name="csrf" value="${esc(csrf)}">`;

export const date = (ms: number | null): string => (ms === null ? "—" : isoUtc(ms).replace("T", " ").slice(0, 16) + " UTC");

export function frame(f: Frame, title: string, body: string, flash?: Flash): string {
  const nav = DASHBOARD_SECTIONS.map(
    (s) => `<a href="${s.path}"${s.path === f.current ? ' aria-current="page"' : ""}>${esc(s.label)}</a>`,
  ).join("");
  const messages =
    (flash?.notice ? `<div class="notice" role="status">${esc(flash.notice)}</div>` : "") +
    (flash?.error ? `<div class="error" role="alert">${esc(flash.error)}</div>` : "");
  return page(
    `${title} · ${f.orgName} · clipyard`,
    `<header><p class="muted">clipyard dashboard · organisation <strong>${esc(f.orgName)}</strong></p><h1>${esc(title)}</h1></header>
<nav class="dash">${nav}<form method="post" action="/dashboard/logout">${csrfField(f.csrf)}<button class="plain" type="submit">Sign out</button></form></nav>
${messages}${body}`,
    STYLE,
  );
}

export function walletPage(f: Frame, w: WalletSummary, holds: HoldRow[], lots: CreditLotRow[], ledger: LedgerRow[], now: number): string {
  const stats = `<section class="stats">
  <div class="card stat"><span class="muted">Balance</span><b data-testid="balance">${formatUsd(w.balanceCents)}</b></div>
  <div class="card stat"><span class="muted">Held by running jobs</span><b data-testid="held">${formatUsd(w.heldCents)}</b></div>
  <div class="card stat"><span class="muted">Available</span><b data-testid="available">${formatUsd(w.availableCents)}</b></div>
  <div class="card stat"><span class="muted">Free jobs left</span><b data-testid="free">${w.freeJobsRemaining} of ${FREE_TIER_JOBS}</b></div>
</section>
<p class="muted">Prices per successful live job: video_url ${formatUsd(PRICE_CENTS.video_url!)}, youtube_url ${formatUsd(PRICE_CENTS.youtube_url!)}. Your first ${FREE_TIER_JOBS} successful live jobs are free; sandbox jobs are always free. Failed jobs are never charged. Credit expires 12 months after purchase and is used oldest first.</p>`;
  const holdRows = holds
    .map((h) => `<tr><td><code>${esc(h.jobId)}</code></td><td>${h.kind === "free" ? "free-tier slot" : "price"}</td><td class="num">${formatUsd(h.amountCents)}</td><td>${date(h.createdAt)}</td></tr>`)
    .join("");
  const lotRows = lots
    .map((l) => {
      const state = l.expiresAt <= now ? "expired" : l.remainingCents === 0 ? "used up" : "active";
      return `<tr data-lot="${esc(l.id)}"><td>${date(l.purchasedAt)}</td><td class="num">${formatUsd(l.amountCents)}</td><td class="num">${formatUsd(l.remainingCents)}</td><td>${date(l.expiresAt)}</td><td>${state}</td></tr>`;
    })
    .join("");
  const ledgerRows = ledger
    .map(
      (e) =>
        `<tr><td>${date(e.createdAt)}</td><td>${e.kind}</td><td class="num">${formatUsd(e.amountCents)}</td><td>${e.jobId ? `job <code>${esc(e.jobId)}</code>` : `top-up <code>${esc(e.topupId ?? "")}</code>`}</td></tr>`,
    )
    .join("");
  const empty = (cols: number, text: string) => `<tr><td colspan="${cols}" class="muted">${text}</td></tr>`;
  return frame(
    f,
    "Wallet",
    `${stats}
<section class="card"><h2>Credit lots</h2><table id="lots"><thead><tr><th>Purchased</th><th class="num">Amount</th><th class="num">Remaining</th><th>Expires</th><th>State</th></tr></thead><tbody>${lotRows || empty(5, "No credit yet. Top up to run live jobs beyond the free tier.")}</tbody></table></section>
<section class="card"><h2>Holds</h2><p class="muted">Each running live job reserves its price (or a free-tier slot) until it ends; a failed job's hold is released.</p><table><thead><tr><th>Job</th><th>Reserves</th><th class="num">Amount</th><th>Since</th></tr></thead><tbody>${holdRows || empty(4, "No running live jobs.")}</tbody></table></section>
<section class="card"><h2>Ledger</h2><table id="ledger"><thead><tr><th>When</th><th>Entry</th><th class="num">Amount</th><th>For</th></tr></thead><tbody>${ledgerRows || empty(4, "No entries yet.")}</tbody></table></section>`,
  );
}

export function topupPage(f: Frame, providers: { stripe: boolean; offline: boolean }, history: TopupRow[], flash?: Flash, amount = ""): string {
  const options = [
    providers.stripe ? `<label><input type="radio" name="provider" value="stripe" checked> Card (Stripe Checkout)</label>` : "",
    providers.offline
      ? `<label><input type="radio" name="provider" value="offline"${providers.stripe ? "" : " checked"}> Offline payment (bank transfer, invoice…), approved by the operator</label>`
      : "",
  ].filter(Boolean);
  const form = options.length
    ? `<form method="post" action="/dashboard/topup" class="card">${csrfField(f.csrf)}
  <p><label>Amount in USD (${formatUsd(TOPUP_MIN_CENTS)} to ${formatUsd(TOPUP_MAX_CENTS)})<br><input name="amount" inputmode="decimal" required value="${esc(amount)}" placeholder="50.00" aria-label="Amount in USD"></label></p>
  <p>${options.join("<br>")}</p>
  <p><button type="submit">Top up</button></p></form>`
    : `<p class="error">No top-up provider is configured on this appliance. The operator can add credit with <code>clipyard credits grant</code>.</p>`;
  const rows = history
    .map((t) => {
      const actions =
        t.status === "pending" && t.provider === "offline"
          ? `<form class="inline" method="post" action="/dashboard/topup/${esc(t.id)}/approve">${csrfField(f.csrf)}<button type="submit">Approve (payment received)</button></form>
             <form class="inline" method="post" action="/dashboard/topup/${esc(t.id)}/reject">${csrfField(f.csrf)}<button class="plain" type="submit">Reject</button></form>`
          : "";
      return `<tr data-topup="${esc(t.id)}"><td>${date(t.createdAt)}</td><td class="num">${formatUsd(t.amountCents)}</td><td>${t.provider}</td><td>${t.status}</td><td>${actions}</td></tr>`;
    })
    .join("");
  return frame(
    f,
    "Top up",
    `${form}<section class="card"><h2>Top-ups</h2><table id="topups"><thead><tr><th>Requested</th><th class="num">Amount</th><th>Provider</th><th>Status</th><th></th></tr></thead><tbody>${rows || `<tr><td colspan="5" class="muted">None yet.</td></tr>`}</tbody></table></section>`,
    flash,
  );
}

export function receiptsPage(f: Frame, receipts: ReceiptRow[], email: string | null, flash?: Flash): string {
  const rows = receipts
    .map((r) => {
      const mail = r.emailedAt ? `mailed to ${esc(r.emailTo)}` : r.emailError ? `mail failed: ${esc(r.emailError)}` : r.emailTo ? "mail pending" : "stored only";
      return `<tr><td><a href="/dashboard/receipts/${esc(r.id)}">#${r.number}</a></td><td>${date(r.issuedAt)}</td><td class="num">${formatUsd(r.amountCents)}</td><td>${mail}</td></tr>`;
    })
    .join("");
  return frame(
    f,
    "Receipts",
    `<section class="card"><table id="receipts"><thead><tr><th>Receipt</th><th>Issued</th><th class="num">Amount</th><th>Email</th></tr></thead><tbody>${rows || `<tr><td colspan="4" class="muted">No receipts yet.</td></tr>`}</tbody></table></section>
<form class="card" method="post" action="/dashboard/billing-email">${csrfField(f.csrf)}<h2>Receipt email</h2><p class="muted">Receipts are always kept here; they are also mailed to this address when the appliance has SMTP configured.</p>
<input type="email" name="email" value="${esc(email ?? "")}" placeholder="billing@example.com" aria-label="Billing email"> <button type="submit">Save</button></form>`,
    flash,
  );
}

export function receiptPage(f: Frame, r: ReceiptRow): string {
  return frame(f, `Receipt #${r.number}`, `<section class="card"><pre id="receipt">${esc(r.text)}</pre></section>`);
}

export function keysPage(f: Frame, keys: ApiKeyRow[], created?: { key: string; env: string }, flash?: Flash): string {
  const shown = created
    ? `<div class="notice" role="status"><p>New ${esc(created.env)} key. Copy it now: it is shown only once and is not stored.</p><code class="secret" id="new-key">${esc(created.key)}</code></div>`
    : "";
  const rows = keys
    .map((k) => {
      const revoke = k.revokedAt
        ? `revoked ${date(k.revokedAt)}`
        : `<form class="inline" method="post" action="/dashboard/keys/${esc(k.id)}/revoke">${csrfField(f.csrf)}<button class="plain" type="submit">Revoke</button></form>`;
      return `<tr data-key="${esc(k.id)}"><td><code>${esc(k.hint)}</code></td><td>${k.env === "live" ? "live" : "sandbox"}</td><td>${date(k.createdAt)}</td><td>${revoke}</td></tr>`;
    })
    .join("");
  return frame(
    f,
    "API keys",
    `${shown}<form class="card" method="post" action="/dashboard/keys">${csrfField(f.csrf)}<h2>Create a key</h2>
<select name="env" aria-label="Environment"><option value="test">sandbox (svc_test_)</option><option value="live">live (svc_live_)</option></select> <button type="submit">Create key</button></form>
<section class="card"><table id="keys"><thead><tr><th>Key</th><th>Environment</th><th>Created</th><th></th></tr></thead><tbody>${rows || `<tr><td colspan="4" class="muted">No keys yet.</td></tr>`}</tbody></table></section>`,
    flash,
  );
}

export function jobsPage(f: Frame, jobs: Array<{ row: JobRow; job: Job; charge: string }>): string {
  const rows = jobs
    .map(({ row, job, charge }) => {
      let outputs = "";
      if (job.output) {
        const links = [`<a href="${esc(job.output.guest_share_url)}">share page</a>`];
        if (job.output.trailer) links.push(`<a href="${esc(job.output.trailer.url)}">trailer</a>`);
        for (const c of job.output.clips) for (const [dest, url] of Object.entries(c.rendered_urls)) links.push(`<a href="${esc(url)}">#${c.rank} ${esc(dest)}</a>`);
        outputs = links.join(" · ");
      } else if (job.error) outputs = `<span class="muted">${esc(job.error.code)}</span>`;
      return `<tr><td><a href="/dashboard/jobs/${esc(row.id)}"><code>${esc(row.id)}</code></a></td><td>${row.env === "live" ? "live" : "sandbox"}</td><td>${esc(row.sourceType)}</td><td>${row.status}${job.progress ? ` · ${esc(job.progress.stage)} ${job.progress.percent}%` : ""}</td><td>${date(row.createdAt)}</td><td>${charge}</td><td>${outputs}</td></tr>`;
    })
    .join("");
  return frame(
    f,
    "Jobs",
    `<section class="card"><table id="jobs"><thead><tr><th>Job</th><th>Env</th><th>Source</th><th>Status</th><th>Created</th><th>Charge</th><th>Outputs</th></tr></thead><tbody>${rows || `<tr><td colspan="7" class="muted">No jobs yet.</td></tr>`}</tbody></table></section>`,
  );
}

const reviewCell = (c: Clip): string =>
  c.review ? `<span data-review="${c.review.decision}">${c.review.decision === "approved" ? "✓ approved" : "✗ rejected"}</span><br><span class="muted">${esc(c.review.reviewed_at.replace("T", " ").slice(0, 16))} UTC</span>` : `<span class="muted" data-review="none">not reviewed</span>`;

const renderCell = (c: Clip): string =>
  c.render ? `<span data-render="${c.render.status}">${c.render.status}</span>${c.render.error ? `<br><span class="muted">${esc(c.render.error)}</span>` : ""}` : `<span class="muted">original</span>`;

function rerenderForm(f: Frame, jobId: string, c: Clip): string {
  const styles = CAPTION_STYLES.map((st) => `<option value="${st}"${st === c.caption_style ? " selected" : ""}>${st}</option>`).join("");
  return `<form method="post" action="/dashboard/jobs/${esc(jobId)}/clips/${esc(c.id)}/renders" data-rerender="${c.rank}">${csrfField(f.csrf)}
<select name="caption_style" aria-label="Caption style of clip ${c.rank}">${styles}</select>
<input name="start_time" inputmode="decimal" size="7" value="${c.start_time}" aria-label="Start of clip ${c.rank} (seconds)">–<input name="end_time" inputmode="decimal" size="7" value="${c.end_time}" aria-label="End of clip ${c.rank} (seconds)">
<button type="submit">Re-render</button></form>`;
}

/** One job: its clips with the guest's review decisions and a re-render form each (times are snapped to sentence edges). */
export function jobPage(f: Frame, row: JobRow, job: Job, flash?: Flash, editor = ""): string {
  const head = `<p><code>${esc(row.id)}</code> · ${worldName(row.env)} · ${esc(row.sourceType)} · ${row.status}${job.output ? ` · <a href="${esc(job.output.guest_share_url)}">share page</a>` : ""}</p>`;
  if (!job.output) return frame(f, "Job", `${head}<p class="muted">Clips appear here once the job is complete.</p>`, flash);
  const rows = job.output.clips
    .map((c) => {
      const links = Object.entries(c.rendered_urls).map(([dest, url]) => `<a href="${esc(url)}">${esc(dest)}</a>`).join(" · ");
      return `<tr data-clip="${c.rank}"><td>#${c.rank}</td><td><strong>${esc(c.title ?? c.hook)}</strong><br><span class="muted">${c.start_time.toFixed(2)}–${c.end_time.toFixed(2)} s · ${esc(c.caption_style ?? "")}</span><br>${links}</td><td>${reviewCell(c)}</td><td>${renderCell(c)}</td><td>${rerenderForm(f, row.id, c)}</td></tr>`;
    })
    .join("");
  return frame(
    f,
    "Job",
    `${head}<section class="card"><h2>Clips</h2><p class="muted">Re-render a clip with another caption style or other times (snapped to the nearest sentence edges); it is not billed again and no other clip changes.</p>
<table id="clips"><thead><tr><th>Rank</th><th>Clip</th><th>Guest review</th><th>Render</th><th>Re-render</th></tr></thead><tbody>${rows}</tbody></table></section>
${editor}`,
    flash,
  );
}

export function loginPage(token: string | null, error?: string): string {
  const body = error
    ? `<h1>Sign-in link not valid</h1><p class="error" role="alert">${esc(error)}</p><p class="muted">Run <code>clipyard login --org NAME</code> on the appliance for a new link.</p>`
    : `<h1>Sign in to the clipyard dashboard</h1><p class="muted">This link works once and expires 15 minutes after it was printed.</p>
<form method="post" action="/dashboard/login"><input type="hidden" name="token" value="${esc(token ?? "")}"><button type="submit">Sign in</button></form>`;
  return page("Sign in · clipyard", body, STYLE);
}

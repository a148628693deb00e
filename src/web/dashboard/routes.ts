import { inArray } from "drizzle-orm";
import type { Elysia } from "elysia";
import { createKey, listKeys, revokeKeyById } from "../../accounts/keys.ts";
import { ApiError } from "../../errors.ts";
import { parseUsd, formatUsd } from "../../billing/pricing.ts";
import { billingEmail, getReceipt, listReceipts, listTopups, setBillingEmail } from "../../billing/topups.ts";
import { listActiveHolds, listLedger, listLots, walletSummary } from "../../billing/wallet.ts";
import type { AppContext } from "../../api/context.ts";
import { jobCharges } from "../../db/schema.ts";
import { presentJob } from "../../jobs/present.ts";
import { getJobById, listJobs } from "../../jobs/store.ts";
import { ClipRenderCreateSchema } from "../../jobs/schema.ts";
import { parseOrThrow } from "../../validate.ts";
import { ENVS } from "../../accounts/scope.ts";
import { esc, page } from "../html.ts";
import { frame, type Flash, jobPage, jobsPage, keysPage, loginPage, receiptPage, receiptsPage, topupPage, walletPage } from "./pages.ts";
import { dashboardRouter, html, readForm, redirect } from "./router.ts";
import { EDITOR_FLASH, EDITOR_PAGE_CSP, editorWords } from "./editor.ts";
import { editorSection } from "./editor-view.ts";
import { clearedSessionCookie, endSession, redeemLoginToken, sessionCookie, SESSION_TTL_MS } from "./session.ts";

/**
 * The developer dashboard under /dashboard: wallet, top-ups, receipts, API keys and jobs of the
 * signed-in organisation. GETs render; POSTs need the session cookie and the session's CSRF token,
 * and answer with a redirect (post/redirect/get) except where a secret is shown once.
 */
export function registerDashboardRoutes(app: Elysia, ctx: AppContext): void {
  const secure = ctx.config.publicUrl.startsWith("https://");
  const { view, action, frameFor } = dashboardRouter(app, ctx);
  /**
   * Post/redirect/get messages travel as a fixed code (plus a top-up id looked up in the session's
   * organisation), never as text: a crafted link cannot make the dashboard say anything else.
   */
  const flashOf = (request: Request, orgId: string): Flash => {
    const q = new URL(request.url).searchParams;
    const code = q.get("flash");
    const topup = q.get("topup") ? listTopups(ctx.db, orgId).find((t) => t.id === q.get("topup")) : undefined;
    const receipt = topup ? listReceipts(ctx.db, orgId).find((r) => r.topupId === topup.id) : undefined;
    const amount = topup ? formatUsd(topup.amountCents) : "The";
    switch (code) {
      case "topup_requested": return { notice: `Offline top-up of ${amount} requested; approve it once the payment has arrived.` };
      case "topup_credited": return { notice: `Credited ${amount}; receipt #${receipt?.number ?? "?"} issued.` };
      case "topup_already_credited": return { notice: `Already credited (receipt #${receipt?.number ?? "?"}).` };
      case "topup_rejected": return { notice: `Top-up of ${amount} rejected.` };
      case "topup_not_pending": return { error: "That top-up is not pending." };
      case "key_revoked": return { notice: "Key revoked." };
      case "key_not_found": return { error: "No such active key." };
      case "email_saved": return { notice: "Receipts will be mailed to the billing email." };
      case "email_cleared": return { notice: "Receipts will not be mailed." };
      case "email_invalid": return { error: "That is not an email address." };
      case "render_queued": return { notice: "Re-render queued: the clip's new files replace the old ones when it is done." };
      case "render_done": return { notice: "Re-render recorded (sandbox jobs render nothing; the clip's caption style is updated)." };
      case "render_unchanged": return { notice: "Nothing to re-render: the clip already has these settings." };
      case "render_invalid": return { error: "Re-render refused: the times must be numbers, the end after the start, with a finished sentence between them." };
      case "render_unavailable": return { error: "This job's clips cannot be re-rendered: it is not complete, or its transcript checkpoint is gone." };
      default: return EDITOR_FLASH[code ?? ""] ?? {};
    }
  };
  const back = (path: string, flash: string, topupId?: string) => redirect(`${path}?flash=${flash}${topupId ? `&topup=${encodeURIComponent(topupId)}` : ""}`);

  // --- sign-in ---
  app.get("/dashboard/login", ({ request }) => html(loginPage(new URL(request.url).searchParams.get("token"))));
  app.post(
    "/dashboard/login",
    async ({ request }) => {
      const token = (await readForm(request)).get("token") ?? "";
      const redeemed = redeemLoginToken(ctx.db, ctx.clock, token);
      if (!redeemed) return html(loginPage(null, "This sign-in link was already used, has expired or is not valid."), 400);
      return redirect("/dashboard", { "set-cookie": sessionCookie(redeemed.sessionId, SESSION_TTL_MS, secure) });
    },
    { parse: "none" },
  );
  action("/dashboard/logout", (s) => {
    endSession(ctx.db, s);
    return html(page("Signed out · clipyard", "<h1>Signed out</h1>"), 200, { "set-cookie": clearedSessionCookie(secure) });
  });

  // --- wallet ---
  view("/dashboard", (s, f) => {
    const now = ctx.clock.now();
    return walletPage(f, walletSummary(ctx.db, s.orgId, now), listActiveHolds(ctx.db, s.orgId), listLots(ctx.db, s.orgId), listLedger(ctx.db, s.orgId), now);
  });

  // --- top-ups ---
  view("/dashboard/topup", (s, f, request) => {
    const q = new URL(request.url).searchParams;
    const checkout = q.get("checkout");
    const flash = flashOf(request, s.orgId);
    if (checkout === "success") flash.notice = "Payment received by Stripe. The credit appears as soon as Stripe confirms it to the appliance.";
    if (checkout === "cancelled") flash.error = "Checkout cancelled; nothing was charged.";
    return topupPage(f, ctx.billing.providers, listTopups(ctx.db, s.orgId), flash);
  });
  action("/dashboard/topup", async (s, form, _p, request) => {
    const amountText = form.get("amount") ?? "";
    const provider = form.get("provider");
    try {
      const cents = parseUsd(amountText) ?? -1;
      if (provider === "stripe") {
        const returnUrl = `${ctx.config.publicUrl}/dashboard/topup`;
        return redirect(await ctx.billing.startStripeCheckout(s.orgId, cents, returnUrl));
      }
      if (provider === "offline") {
        const topup = ctx.billing.requestOfflineTopup(s.orgId, cents);
        return back("/dashboard/topup", "topup_requested", topup.id);
      }
      throw new ApiError("payment_provider_unavailable", "Choose a payment method.");
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return html(topupPage(frameFor(s, "/dashboard/topup"), ctx.billing.providers, listTopups(ctx.db, s.orgId), { error: err.message }, amountText), err.status);
    }
  });
  action("/dashboard/topup/:id/approve", (s, _f, params) => {
    try {
      const { credited } = ctx.billing.approveOfflineTopup(s.orgId, params.id!);
      return back("/dashboard/topup", credited ? "topup_credited" : "topup_already_credited", params.id);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return back("/dashboard/topup", "topup_not_pending");
    }
  });
  action("/dashboard/topup/:id/reject", (s, _f, params) => {
    const done = ctx.billing.rejectOfflineTopup(s.orgId, params.id!);
    return done ? back("/dashboard/topup", "topup_rejected", params.id) : back("/dashboard/topup", "topup_not_pending");
  });

  // --- receipts ---
  view("/dashboard/receipts", (s, f, request) => receiptsPage(f, listReceipts(ctx.db, s.orgId), billingEmail(ctx.db, s.orgId), flashOf(request, s.orgId)));
  view("/dashboard/receipts/:id", (s, f, _r, params) => {
    const r = getReceipt(ctx.db, s.orgId, params.id!);
    return r ? receiptPage({ ...f, current: "/dashboard/receipts" }, r) : html(frame(f, "Not found", "<p>No such receipt.</p>"), 404);
  });
  action("/dashboard/billing-email", (s, form) => {
    const email = (form.get("email") ?? "").trim();
    if (email && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) return back("/dashboard/receipts", "email_invalid");
    setBillingEmail(ctx.db, s.orgId, email || null);
    return back("/dashboard/receipts", email ? "email_saved" : "email_cleared");
  });

  // --- API keys ---
  view("/dashboard/keys", (s, f, request) => keysPage(f, listKeys(ctx.db, s.orgId), undefined, flashOf(request, s.orgId)));
  action("/dashboard/keys", (s, form) => {
    const env = form.get("env") === "live" ? "live" : "test";
    const { key } = createKey(ctx.db, s.orgId, env, ctx.clock);
    // Answered directly, not redirected: the key must not travel in a URL or be re-shown on reload.
    return html(keysPage(frameFor(s, "/dashboard/keys"), listKeys(ctx.db, s.orgId), { key, env }), 201);
  });
  action("/dashboard/keys/:id/revoke", (s, _f, params) => {
    const done = revokeKeyById(ctx.db, s.orgId, params.id!, ctx.clock);
    return back("/dashboard/keys", done ? "key_revoked" : "key_not_found");
  });

  // --- jobs ---
  view("/dashboard/jobs", (s, f) => {
    // Both worlds, newest first, each row labelled live or sandbox: the operator sees the whole organisation.
    const rows = ENVS.flatMap((env) => listJobs(ctx.db, { orgId: s.orgId, env }, 100).rows)
      .sort((a, b) => b.seq - a.seq)
      .slice(0, 100);
    const charges = new Map(
      rows.length
        ? ctx.db.select().from(jobCharges).where(inArray(jobCharges.jobId, rows.map((r) => r.id))).all().map((c) => [c.jobId, c])
        : [],
    );
    return jobsPage(
      f,
      rows.map((row) => {
        const c = charges.get(row.id);
        const charge = row.env === "test" ? "sandbox (free)" : c ? (c.free ? "free tier" : formatUsd(c.chargedCents)) : row.status === "failed" ? "not charged" : "pending";
        return { row, job: presentJob(row, ctx.present), charge };
      }),
    );
  });

  // --- one job: its clips, their review decisions, and a re-render form per clip ---
  const ownJob = (orgId: string, id: string) => {
    const row = getJobById(ctx.db, id);
    return row && row.orgId === orgId ? row : undefined;
  };
  view("/dashboard/jobs/:id", async (s, f, request, params) => {
    const row = ownJob(s.orgId, params.id!);
    if (!row) return html(frame(f, "Job not found", `<p class="muted">No job ${esc(params.id)} in this organisation.</p>`), 404);
    const job = presentJob(row, ctx.present);
    const frameOf = { ...f, current: "/dashboard/jobs" };
    const editor = editorSection(frameOf, job, await editorWords(ctx, row));
    return html(jobPage(frameOf, row, job, flashOf(request, s.orgId), editor), 200, { "content-security-policy": EDITOR_PAGE_CSP });
  });
  action("/dashboard/jobs/:id/clips/:clip_id/renders", async (s, form, params) => {
    const row = ownJob(s.orgId, params.id!);
    const path = `/dashboard/jobs/${encodeURIComponent(params.id!)}`;
    if (!row) return redirect("/dashboard/jobs");
    // Empty or untouched fields mean "keep the clip's value", like a field left out of the API
    // request: an untouched time must not be snapped again when only the style changes.
    const current = presentJob(row, ctx.present).output?.clips.find((c) => c.id === params.clip_id) as Record<string, unknown> | undefined;
    const fields: Record<string, unknown> = {};
    for (const name of ["caption_style", "start_time", "end_time"] as const) {
      const v = form.get(name)?.trim();
      const value = name === "caption_style" ? v : Number(v);
      if (v && value !== current?.[name]) fields[name] = value;
    }
    if (Object.keys(fields).length === 0) return back(path, "render_unchanged");
    try {
      const body = parseOrThrow(ClipRenderCreateSchema, fields, () => "invalid_body");
      const before = row.output;
      await ctx.renders.prepare({ orgId: s.orgId, env: row.env }, row.id);
      const { clip } = ctx.renders.request({ orgId: s.orgId, env: row.env }, row.id, params.clip_id!, body);
      const changed = getJobById(ctx.db, row.id)?.output !== before;
      return back(path, !changed ? "render_unchanged" : clip.render?.status === "queued" ? "render_queued" : "render_done");
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return back(path, err.code === "invalid_body" ? "render_invalid" : "render_unavailable");
    }
  });
}

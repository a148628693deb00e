import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKey } from "../../src/accounts/keys.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { buildAppliance, type Appliance } from "../../src/appliance.ts";
import { WalletSchema } from "../../src/billing/schema.ts";
import { grantCredits } from "../../src/billing/topups.ts";
import { ManualClock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { issueLoginToken, LOGIN_TOKEN_TTL_MS } from "../../src/web/dashboard/session.ts";
import { EMPTY_OUTPUT } from "./helpers.ts";
import { testDbEnv } from "../helpers/db.ts";

/** The billing HTTP surface through the real Elysia app (no sockets needed: app.handle). */
let dir: string;
let app: Appliance;
let clock: ManualClock;
let orgId: string;
afterEach(() => {
  app?.ctx.db.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

function boot() {
  dir = mkdtempSync(join(tmpdir(), "clipyard-billing-http-"));
  clock = new ManualClock(Date.UTC(2026, 2, 1));
  app = buildAppliance(loadConfig({ CLIPYARD_DATA_DIR: dir, ...testDbEnv(dir), CLIPYARD_PUBLIC_URL: "http://clipyard.lan:8787" }), clock);
  orgId = ensureOrg(app.ctx.db, "acme", clock).id;
}

const req = (path: string, init: RequestInit = {}) => app.api.handle(new Request(`http://clipyard.lan:8787${path}`, init));

async function signIn(): Promise<{ cookie: string; csrf: string }> {
  const { token } = issueLoginToken(app.ctx.db, clock, orgId);
  const res = await req("/dashboard/login", { method: "POST", body: new URLSearchParams({ token }), headers: { "content-type": "application/x-www-form-urlencoded" } });
  expect(res.status).toBe(303);
  const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
  const page = await (await req("/dashboard", { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
  return { cookie, csrf };
}

const post = (path: string, cookie: string, fields: Record<string, string>) =>
  req(path, { method: "POST", body: new URLSearchParams(fields), headers: { cookie, "content-type": "application/x-www-form-urlencoded" } });

describe("GET /v1/wallet", () => {
  test("reports balance, holds, free jobs and lots for the key's organisation", async () => {
    boot();
    const { key } = createKey(app.ctx.db, orgId, "live", clock);
    grantCredits(app.ctx.db, orgId, 1234, clock.now());
    const res = await req("/v1/wallet", { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBe("600");
    const body = await res.json();
    expect(body).toMatchObject({ object: "wallet", balance_cents: 1234, held_cents: 0, available_cents: 1234, free_jobs_remaining: 3 });
    expect(body.lots).toEqual([
      { id: expect.any(String), amount_cents: 1234, remaining_cents: 1234, purchased_at: "2026-03-01T00:00:00.000Z", expires_at: "2027-03-01T00:00:00.000Z" },
    ]);
    expect(WalletSchema.safeParse(body).success).toBe(true);
    const doc = await (await req("/v1/openapi.json")).json();
    expect(doc.paths["/v1/wallet"].get).toBeDefined();
    const anon = await req("/v1/wallet");
    expect(anon.status).toBe(401);
    expect((await anon.json()).error.code).toBe("missing_authorization");
  });

  test("POST /v1/jobs beyond the free tier without balance answers 402 insufficient_balance", async () => {
    boot();
    const { key } = createKey(app.ctx.db, orgId, "live", clock);
    const submit = () =>
      req("/v1/jobs", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ source: { type: "video_url", url: "https://media.example.com/ep.mp4" } }),
      });
    for (let i = 0; i < 3; i++) {
      const res = await submit();
      expect(res.status).toBe(202);
      const job = await res.json();
      app.ctx.transitions.complete(job.id, EMPTY_OUTPUT, { from: ["queued"] });
    }
    const refused = await submit();
    expect(refused.status).toBe(402);
    expect((await refused.json()).error).toMatchObject({ type: "invalid_request_error", code: "insufficient_balance" });
    const sandboxKey = createKey(app.ctx.db, orgId, "test", clock).key;
    const sandbox = await req("/v1/jobs", {
      method: "POST",
      headers: { authorization: `Bearer ${sandboxKey}`, "content-type": "application/json" },
      body: JSON.stringify({ source: { type: "video_url", url: "https://media.example.com/ep.mp4" } }),
    });
    expect(sandbox.status).toBe(202); // the sandbox is never billed
  });
});

describe("dashboard sign-in", () => {
  test("a login link works once, sets a strict HttpOnly cookie, and expires after 15 minutes", async () => {
    boot();
    const { token } = issueLoginToken(app.ctx.db, clock, orgId);
    const landing = await req(`/dashboard/login?token=${token}`);
    expect(landing.status).toBe(200); // GET only shows a button: link previews cannot spend the token
    const form = { method: "POST", body: new URLSearchParams({ token }), headers: { "content-type": "application/x-www-form-urlencoded" } };
    const first = await req("/dashboard/login", form);
    expect(first.status).toBe(303);
    const cookie = first.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^clipyard_dashboard=[0-9A-Za-z]{40,}; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect((await req("/dashboard/login", { ...form, body: new URLSearchParams({ token }) })).status).toBe(400); // single use

    const late = issueLoginToken(app.ctx.db, clock, orgId).token;
    clock.advance(LOGIN_TOKEN_TTL_MS);
    expect((await req("/dashboard/login", { ...form, body: new URLSearchParams({ token: late }) })).status).toBe(400);

    expect((await req("/dashboard")).status).toBe(401);
    expect((await req("/dashboard", { headers: { cookie: cookie.split(";")[0]! } })).status).toBe(200);
    clock.advance(12 * 3600 * 1000);
    expect((await req("/dashboard", { headers: { cookie: cookie.split(";")[0]! } })).status).toBe(401); // session expired
  });

  test("forms need the session's CSRF token", async () => {
    boot();
    const { cookie, csrf } = await signIn();
    expect((await post("/dashboard/keys", cookie, { env: "test" })).status).toBe(403);
    expect((await post("/dashboard/keys", cookie, { env: "test", csrf: "x".repeat(27) })).status).toBe(403);
    const created = await post("/dashboard/keys", cookie, { env: "test", csrf });
    expect(created.status).toBe(201);
    expect(await created.text()).toMatch(/id="new-key">svc_test_[0-9A-Za-z]+</);
    const crossSite = await req("/dashboard/keys", {
      method: "POST",
      body: new URLSearchParams({ env: "test", csrf }),
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
    });
    expect(crossSite.status).toBe(403);
    const other = await signIn(); // another session has another token
    expect(other.csrf).not.toBe(csrf);
    expect((await post("/dashboard/keys", cookie, { env: "test", csrf: other.csrf })).status).toBe(403);
  });
});

describe("dashboard top-ups (offline provider)", () => {
  test("bounds: 4.99 and 500.01 are refused, 5 and 500 accepted", async () => {
    boot();
    const { cookie, csrf } = await signIn();
    for (const amount of ["4.99", "500.01", "abc", "5.001", "-5"]) {
      const res = await post("/dashboard/topup", cookie, { amount, provider: "offline", csrf });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("A top-up is between $5.00 and $500.00.");
    }
    for (const amount of ["5", "500.00"]) expect((await post("/dashboard/topup", cookie, { amount, provider: "offline", csrf })).status).toBe(303);
  });

  test("request, approve once, receipt and lot appear", async () => {
    boot();
    const { cookie, csrf } = await signIn();
    expect((await post("/dashboard/topup", cookie, { amount: "42.50", provider: "offline", csrf })).status).toBe(303);
    const page = await (await req("/dashboard/topup", { headers: { cookie } })).text();
    const id = /data-topup="([^"]+)"/.exec(page)![1]!;
    expect((await post(`/dashboard/topup/${id}/approve`, cookie, { csrf })).status).toBe(303);
    expect((await post(`/dashboard/topup/${id}/approve`, cookie, { csrf })).headers.get("location")).toBe(`/dashboard/topup?flash=topup_already_credited&topup=${id}`);
    const wallet = await (await req("/dashboard", { headers: { cookie } })).text();
    expect(wallet).toContain('data-testid="balance">$42.50<');
    const receipts = await (await req("/dashboard/receipts", { headers: { cookie } })).text();
    const crafted = await (await req("/dashboard/topup?flash=Your%20account%20is%20locked&notice=call%20us", { headers: { cookie } })).text();
    expect(crafted).not.toContain("locked");
    expect(crafted).not.toContain("call us");
    expect(receipts.match(/>#\d+<\/a>/g)).toEqual([">#1</a>"]); // one receipt for two approvals
  });
});

describe("dashboard housekeeping forms", () => {
  test("revoke a key, reject a top-up, set the billing email; other organisations' ids do nothing", async () => {
    boot();
    const { cookie, csrf } = await signIn();
    const mine = createKey(app.ctx.db, orgId, "live", clock);
    const theirs = createKey(app.ctx.db, ensureOrg(app.ctx.db, "globex", clock).id, "live", clock);
    expect((await post(`/dashboard/keys/${theirs.record.id}/revoke`, cookie, { csrf })).headers.get("location")).toBe("/dashboard/keys?flash=key_not_found");
    expect((await post(`/dashboard/keys/${mine.record.id}/revoke`, cookie, { csrf })).headers.get("location")).toBe("/dashboard/keys?flash=key_revoked");
    const revoked = await req("/v1/wallet", { headers: { authorization: `Bearer ${mine.key}` } });
    expect((await revoked.json()).error.code).toBe("api_key_revoked");
    expect((await req("/v1/wallet", { headers: { authorization: `Bearer ${theirs.key}` } })).status).toBe(200);

    await post("/dashboard/topup", cookie, { amount: "20", provider: "offline", csrf });
    const id = /data-topup="([^"]+)"/.exec(await (await req("/dashboard/topup", { headers: { cookie } })).text())![1]!;
    expect((await post(`/dashboard/topup/${id}/reject`, cookie, { csrf })).headers.get("location")).toBe(`/dashboard/topup?flash=topup_rejected&topup=${id}`);
    expect((await post(`/dashboard/topup/${id}/approve`, cookie, { csrf })).headers.get("location")).toBe("/dashboard/topup?flash=topup_not_pending");
    expect(walletSummaryOf()).toBe(0);

    expect((await post("/dashboard/billing-email", cookie, { email: "not an email", csrf })).headers.get("location")).toBe("/dashboard/receipts?flash=email_invalid");
    await post("/dashboard/billing-email", cookie, { email: "billing@acme.example", csrf });
    expect(await (await req("/dashboard/receipts", { headers: { cookie } })).text()).toContain('value="billing@acme.example"');
  });
});

function walletSummaryOf(): number {
  return (app.ctx.db.$client.query("SELECT coalesce(sum(remaining_cents), 0) AS v FROM credit_lots").get() as { v: number }).v;
}

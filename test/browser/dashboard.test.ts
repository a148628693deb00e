import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { buildAppliance, type Appliance } from "../../src/appliance.ts";
import { loadConfig } from "../../src/config.ts";
import { submitJob } from "../../src/jobs/submit.ts";
import type { StoredOutput } from "../../src/pipeline/output.ts";
import { issueLoginToken, loginUrl } from "../../src/web/dashboard/session.ts";
import { testDbEnv } from "../helpers/db.ts";

/**
 * The dashboard in real Chromium against the real server on a socket: sign in with a login link,
 * create a key, top up with the offline provider, see the receipt and the new credit lot.
 * Screenshots go to test/browser/screenshots/ (git-ignored) for a human to look at.
 */
const CHROMIUM = "/usr/bin/chromium";
/** A completed job's stored output (file references only; the dashboard links them, it does not read them). */
const OUTPUT: StoredOutput = {
  clips: [
    {
      id: "clip_1", rank: 1, category: "insight", hook: "Why clips win", pull_quote: "Short beats long.", start_time: 12, end_time: 41,
      duration_seconds: 29, transcript_text: "Short beats long.", files: { linkedin: "job:clip_1_9x16.mp4", x: "job:clip_1_16x9.mp4" },
    },
  ],
  trailer: null,
  show_notes: "# Episode",
  transcript: [],
};
const SHOTS = join(import.meta.dir, "screenshots");

let dir: string;
let app: Appliance;
let browser: Browser;
let page: Page;
let base: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
    srv.on("error", reject);
  });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/setup/billing.sh (apt-get install chromium)`);
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), "clipyard-browser-"));
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = buildAppliance(loadConfig({ CLIPYARD_DATA_DIR: dir, ...testDbEnv(dir), CLIPYARD_PORT: String(port), CLIPYARD_HOST: "127.0.0.1" }));
  app.api.listen({ hostname: "127.0.0.1", port });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await app?.api.stop();
  app?.ctx.db.$client.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

describe("dashboard in Chromium", () => {
  test("sign in, create a key, top up offline, see the receipt and the lot", async () => {
    const { ctx } = app;
    const org = ensureOrg(ctx.db, "acme-podcasts", ctx.clock);
    // Two live jobs: one completed through the transitions layer (free tier), one still in flight,
    // so the holds table and the jobs page have something real to show.
    const submit = (n: number) =>
      submitJob(ctx.db, ctx.clock, { orgId: org.id, env: "live" }, { source: { type: "video_url", url: `https://media.example.com/ep${n}.mp4` } } as never, {
        requestId: `req_browser${n}`,
        timeScale: 1,
        effects: ctx.submitEffects,
      }).job;
    const done = submit(1);
    ctx.transitions.complete(done.id, OUTPUT, { from: ["queued"] });
    submit(2);

    // Not signed in: the dashboard says how to sign in.
    const anon = await page.goto(`${base}/dashboard`);
    expect(anon?.status()).toBe(401);

    const link = loginUrl(base, issueLoginToken(ctx.db, ctx.clock, org.id).token);
    await page.goto(link);
    await shot("01-login");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/dashboard`);
    expect(await page.getByTestId("free").textContent()).toBe("1 of 3");
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === "clipyard_dashboard")).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/dashboard" });
    await shot("02-wallet-empty");

    // The link was single use.
    const again = await browser.newPage();
    await again.goto(link);
    await again.getByRole("button", { name: "Sign in" }).click();
    expect(await again.getByRole("alert").textContent()).toContain("already used");
    await again.close();

    // API keys: create a live key, shown once, and it works against the API.
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByLabel("Environment").selectOption("live");
    await page.getByRole("button", { name: "Create key" }).click();
    const key = (await page.locator("#new-key").textContent())!;
    expect(key).toMatch(/^svc_live_[0-9A-Za-z]{30,}$/);
    await shot("03-key-created");
    const wallet = await fetch(`${base}/v1/wallet`, { headers: { authorization: `Bearer ${key}` } });
    expect(wallet.status).toBe(200);
    await page.getByRole("link", { name: "API keys" }).click();
    expect(await page.locator("#new-key").count()).toBe(0); // never shown again

    // Top-up bounds, then a valid offline top-up, approved.
    await page.getByRole("link", { name: "Top up" }).click();
    await page.getByLabel("Amount in USD").fill("4.99");
    await page.getByRole("button", { name: "Top up" }).click();
    expect(await page.getByRole("alert").textContent()).toContain("between $5.00 and $500.00");
    await page.getByLabel("Amount in USD").fill("42.50");
    await page.getByRole("button", { name: "Top up" }).click();
    expect(await page.getByRole("status").textContent()).toContain("$42.50 requested");
    await shot("04-topup-pending");
    await page.getByRole("button", { name: "Approve (payment received)" }).click();
    expect(await page.getByRole("status").textContent()).toContain("receipt #1 issued");
    await shot("05-topup-approved");

    // Receipt listed and viewable.
    await page.getByRole("link", { name: "Receipts" }).click();
    await page.getByRole("link", { name: "#1" }).click();
    const receipt = (await page.locator("#receipt").textContent())!;
    expect(receipt).toContain("Amount:         $42.50 USD");
    expect(receipt).toContain("Organisation:   acme-podcasts");
    await shot("06-receipt");

    // The new lot, with its expiry, on the wallet page.
    await page.getByRole("link", { name: "Wallet" }).click();
    expect(await page.getByTestId("balance").textContent()).toBe("$42.50");
    const lot = page.locator("#lots tbody tr").first();
    expect(await lot.locator("td").nth(1).textContent()).toBe("$42.50");
    expect(await lot.locator("td").nth(4).textContent()).toBe("active");
    const expires = new Date(ctx.clock.now());
    expires.setUTCMonth(expires.getUTCMonth() + 12);
    expect(await lot.locator("td").nth(3).textContent()).toContain(expires.toISOString().slice(0, 10));
    await shot("07-wallet-with-lot");

    await page.getByRole("link", { name: "Jobs" }).click();
    expect(await page.locator("#jobs tbody tr").count()).toBe(2);
    const completed = page.locator("#jobs tbody tr", { hasText: done.id });
    expect(await completed.locator("td").nth(5).textContent()).toBe("free tier");
    expect(await completed.getByRole("link", { name: "share page" }).getAttribute("href")).toMatch(new RegExp(`^${base}/share/`));
    await shot("08-jobs");

    await page.getByRole("button", { name: "Sign out" }).click();
    const after = await page.goto(`${base}/dashboard`);
    expect(after?.status()).toBe(401);
  }, 120_000);
});

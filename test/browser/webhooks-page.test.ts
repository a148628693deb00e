import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { issueLoginToken, loginUrl } from "../../src/web/dashboard/session.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { eventually } from "../helpers/wait.ts";

/** The dashboard's Webhooks page in real Chromium: deliveries with their attempts, and replay. */
const CHROMIUM = "/usr/bin/chromium";
const SHOTS = join(import.meta.dir, "screenshots");
let app: TestAppliance;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/setup/billing.sh (apt-get install chromium)`);
  mkdirSync(SHOTS, { recursive: true });
  receiver = await startReceiver();
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.002", CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  receiver?.stop();
});

test("webhook deliveries show every attempt, and Replay re-sends the same event", async () => {
  const key = app.key("hooks-page");
  receiver.answer([500], 200); // first attempt fails, the retry succeeds
  const hook = (await app.api("POST", "/v1/webhooks", { key, body: { url: receiver.url(), events: ["job.failed"] } })).json;
  await app.api("POST", "/v1/jobs", { key, body: { source: { type: "video_url", url: "https://m.example.com/fail.mp4" } } });
  const first = await receiver.waitFor(2);
  // The receiver hears the retry before the delivery worker records its answer: wait for the record.
  await eventually(() => app.api("GET", `/v1/webhooks/${hook.id}/deliveries`, { key }), (r) => r.json.data[0]?.status === "succeeded", { what: "the retried delivery's outcome" });

  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const org = ensureOrg(app.ctx.db, "hooks-page", app.ctx.clock);
  await page.goto(loginUrl(app.baseUrl, issueLoginToken(app.ctx.db, app.ctx.clock, org.id).token));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("link", { name: "Webhooks" }).click();
  const section = page.locator(`[data-webhook="${hook.id}"]`);
  await expect(section.textContent()).resolves.toContain(receiver.url());
  // The operator sees both worlds; each endpoint says which one it belongs to.
  expect(await section.locator("[data-env]").textContent()).toBe("sandbox");
  const row = section.locator("tr[data-delivery]").first();
  expect(await row.textContent()).toContain("succeeded");
  expect(await row.locator("li").allTextContents()).toEqual([expect.stringContaining("HTTP 500"), expect.stringContaining("HTTP 200")]);
  await page.screenshot({ path: join(SHOTS, "webhooks-page.png"), fullPage: true });

  await row.getByRole("button", { name: "Replay" }).click();
  expect(await page.getByRole("status").textContent()).toContain("Replay queued");
  const replayed = await receiver.waitFor(3);
  expect(replayed.json.request_id).toBe(first.json.request_id);
  expect(replayed.json.id).toBe(first.json.id);
  expect(await section.locator("tr[data-delivery]").count()).toBe(2);
}, 60_000);

import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { launchChromium, signedInPage } from "../helpers/browser.ts";
import { episodes, startFeedServer } from "../helpers/feed-server.ts";
import { eventually } from "../helpers/wait.ts";

/** The dashboard's Feeds page in real Chromium: both worlds' feeds with what their poller last saw. */
const SHOTS = join(import.meta.dir, "screenshots");
let app: TestAppliance;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.002", CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" } });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

test("the Feeds page lists the organisation's feeds in both worlds with their last poll", async () => {
  const host = startFeedServer(episodes(2));
  const sandbox = (await app.api("POST", "/v1/feeds", { key: app.key("feeds-page"), body: { url: host.url() } })).json;
  const liveKey = app.key("feeds-page", "live");
  const live = (await app.api("POST", "/v1/feeds", { key: liveKey, body: { url: "http://127.0.0.1:9/gone.xml", since: "2026-11-01" } })).json;
  await eventually(() => app.api("GET", "/v1/feeds", { key: liveKey }), (r) => r.json.data[0].last_status === "error", { what: "the live feed's failed poll" });
  await eventually(() => host.requests.length, (n) => n > 0, { what: "the sandbox feed's poll" });
  await eventually(() => app.ctx.db.$client.query("SELECT jobs_created FROM feeds WHERE id = ?").get(sandbox.id), (r: any) => r.jobs_created === 2, { what: "two jobs" });

  const page = await signedInPage(browser, app, "feeds-page");
  await page.getByRole("link", { name: "Feeds" }).click();
  expect(await page.title()).toStartWith("Feeds · feeds-page");
  const mine = page.locator(`tr[data-feed="${sandbox.id}"]`);
  expect(await mine.locator("[data-env]").textContent()).toBe("sandbox");
  expect(await mine.textContent()).toContain(host.url());
  expect(await mine.locator("[data-jobs]").textContent()).toBe("2");
  expect(await mine.locator("[data-status]").textContent()).toMatch(/^(ok|not_modified)$/);
  const theirs = page.locator(`tr[data-feed="${live.id}"]`);
  expect(await theirs.locator("[data-env]").textContent()).toBe("live");
  expect(await theirs.textContent()).toContain("episodes after 2026-11-01 00:00 UTC");
  expect(await theirs.locator("[data-status]").textContent()).toStartWith("errorfetch failed: ");
  // Newest first.
  expect(await page.locator("tr[data-feed]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-feed")))).toEqual([live.id, sandbox.id]);
  await page.screenshot({ path: join(SHOTS, "feeds-page.png"), fullPage: true });
  host.stop();
}, 60_000);

import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { getJobById } from "../../src/jobs/store.ts";
import { uploadFilePath } from "../../src/pipeline/acquire.ts";
import { issueLoginToken, loginUrl } from "../../src/web/dashboard/session.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { launchChromium, SCREENSHOTS } from "../helpers/chromium.ts";
import { speechWav } from "../helpers/speech.ts";

/**
 * The dashboard's Upload page in real Chromium: a file dropped on the zone (a real drop event with
 * a DataTransfer), the progress bar fed by the browser's upload progress, the job it submits
 * running to completion. Screenshots go to test/browser/screenshots/ for a person to look at.
 */
const SHOTS = SCREENSHOTS;
const RECORDING = speechWav();
let app: TestAppliance;
let browser: Browser;

beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.005" } });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

test("drop a recording, watch it upload, the sandbox job it submits completes", async () => {
  const { ctx } = app;
  const org = ensureOrg(ctx.db, "studio-upload", ctx.clock);
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  await page.goto(loginUrl(app.baseUrl, issueLoginToken(ctx.db, ctx.clock, org.id).token));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${app.baseUrl}/dashboard`);
  await page.getByRole("link", { name: "Upload" }).click();
  await page.waitForURL(`${app.baseUrl}/dashboard/upload`);
  expect(await page.getByRole("button", { name: "Upload and create clips" }).isDisabled()).toBe(true);
  await page.screenshot({ path: join(SHOTS, "upload-01-empty.png"), fullPage: true });

  // Record every progress value the page shows, from the first event on.
  await page.evaluate(() => {
    const w = window as unknown as { seen: number[] };
    w.seen = [];
    new MutationObserver(() => w.seen.push(Number((document.getElementById("progress") as HTMLProgressElement).value))).observe(document.getElementById("progress-text")!, { childList: true, characterData: true, subtree: true });
  });
  const bytes = readFileSync(RECORDING);
  await page.evaluate(
    ({ b64, name }) => {
      const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([data], name, { type: "audio/wav" }));
      const zone = document.getElementById("drop")!;
      zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { b64: bytes.toString("base64"), name: "speech.wav" },
  );
  expect(await page.locator("#chosen").textContent()).toBe("speech.wav · 0.5 MB");
  await page.getByLabel("Environment").selectOption("test");
  await page.getByRole("button", { name: "Upload and create clips" }).click();
  const notice = page.locator("#result.notice");
  await notice.waitFor({ timeout: 30_000 });
  const jobId = (await notice.locator("code").textContent())!;
  expect(jobId).toMatch(/^job_/);
  expect(await notice.textContent()).toContain("(sandbox)");
  expect(await page.locator("#progress").evaluate((p) => (p as HTMLProgressElement).value)).toBe(100);
  const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
  expect(seen.length).toBeGreaterThan(0);
  expect(Math.max(...seen)).toBe(100);
  await page.screenshot({ path: join(SHOTS, "upload-02-done.png"), fullPage: true });

  // The job is the organisation's sandbox job on the uploaded bytes.
  const row = getJobById(ctx.db, jobId)!;
  expect(row).toMatchObject({ orgId: org.id, env: "test", sourceType: "upload" });
  expect(readFileSync(uploadFilePath(app.dataDir, row.sourceUrl)).equals(bytes)).toBe(true);
  // The link leads to the Jobs page, where the job shows up complete once the sandbox finishes.
  await notice.getByRole("link", { name: "Jobs" }).click();
  for (;;) {
    const cells = await page.locator("#jobs tr", { hasText: jobId }).textContent();
    if (cells?.includes("complete")) break;
    expect(cells).not.toContain("failed");
    await Bun.sleep(100);
    await page.reload();
  }
  expect(await page.locator("#jobs tr", { hasText: jobId }).textContent()).toContain("upload");
  await page.screenshot({ path: join(SHOTS, "upload-03-jobs.png"), fullPage: true });
}, 90_000);

test("the upload endpoint refuses requests without the session's CSRF token or session", async () => {
  const { ctx } = app;
  const org = ensureOrg(ctx.db, "studio-upload-csrf", ctx.clock);
  const page = await browser.newPage();
  await page.goto(loginUrl(app.baseUrl, issueLoginToken(ctx.db, ctx.clock, org.id).token));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(`${app.baseUrl}/dashboard`);
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const post = (headers: Record<string, string>) => fetch(`${app.baseUrl}/dashboard/upload?env=test`, { method: "POST", headers, body: "abc" });
  expect((await post({})).status).toBe(401);
  expect((await post({ cookie })).status).toBe(403);
  expect((await post({ cookie, "x-csrf-token": "wrong" })).status).toBe(403);
  const csrf = (await page.goto(`${app.baseUrl}/dashboard/upload`), await page.locator("#upload").getAttribute("data-csrf"))!;
  expect((await post({ cookie, "x-csrf-token": csrf, origin: "https://evil.example" })).status).toBe(403);
  const ok = await post({ cookie, "x-csrf-token": csrf });
  expect(ok.status).toBe(201);
}, 60_000);

import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { launchChromium, SCREENSHOTS } from "../helpers/chromium.ts";

/**
 * The guest share page of a completed sandbox job in real Chromium: every clip has a player that
 * really loads the MP4 (readyState, duration, dimensions come from the decoded file) and download
 * links; the screenshot goes to test/browser/screenshots/ for a person to look at.
 */
const SHOTS = SCREENSHOTS;
let app: TestAppliance;
let browser: Browser;

beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.005" } });
  browser = await launchChromium(["--autoplay-policy=no-user-gesture-required"]);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

test("guest share page: players load every clip, downloads and the trailer are offered", async () => {
  const key = app.key("share-browser");
  let job = (await app.api("POST", "/v1/jobs", { key, body: { source: { type: "video_url", url: "https://media.example.com/ep.mp4" }, options: { include_trailer: true } } })).json;
  while (job.status !== "complete") {
    expect(job.status).not.toBe("failed");
    await Bun.sleep(50);
    job = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  }
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const blocked: string[] = [];
  page.on("console", (m) => m.text().includes("Content Security Policy") && blocked.push(m.text()));
  const res = await page.goto(job.output.guest_share_url);
  expect(res?.status()).toBe(200);
  // The dashboard's protections, with the players allowed their same-origin media.
  const headers = res!.headers();
  expect(headers["content-security-policy"]).toContain("default-src 'none'");
  expect(headers["content-security-policy"]).toContain("frame-ancestors 'none'");
  expect(headers["content-security-policy"]).toContain("media-src 'self'");
  expect(headers["x-frame-options"]).toBe("DENY");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  // A public page: nothing in it names the job, or a clip by its id (clip ids embed the job's).
  const html = await res!.text();
  expect(html).not.toContain(job.id);
  expect(html).not.toContain(job.id.replace(/^job_/, ""));
  for (const c of job.output.clips) expect(html).not.toContain(c.id);
  await expect(page.locator("h1").textContent()).resolves.toContain("Rooftop Hours");
  expect(await page.locator("article.card").count()).toBe(3);
  // Each clip's <video> must really load: metadata comes from the MP4 served with Range support.
  const videos = await page.$$eval("video", (els) =>
    Promise.all(
      (els as HTMLVideoElement[]).map(
        (v) =>
          new Promise<{ w: number; h: number; d: number }>((resolve, reject) => {
            const done = () => resolve({ w: v.videoWidth, h: v.videoHeight, d: v.duration });
            if (v.readyState >= 1) done();
            v.addEventListener("loadedmetadata", done);
            v.addEventListener("error", () => reject(new Error(`video error ${v.error?.code} for ${v.currentSrc}`)));
            v.load();
          }),
      ),
    ),
  );
  expect(videos).toHaveLength(4); // trailer + 3 clips
  expect(videos[0]).toMatchObject({ w: 1080, h: 1920 });
  expect(videos[0]!.d).toBeGreaterThanOrEqual(60);
  for (const v of videos.slice(1)) expect(v).toMatchObject({ w: 1080, h: 1920 });
  const downloads = await page.$$eval("a[download]", (as) => as.map((a) => (a as HTMLAnchorElement).href));
  // 3 clips x 2 formats + the trailer, 3 clips x 2 caption files, 7 episode exports (transcript
  // SRT/VTT/text, chapters, and the OTIO, FCPXML and Final Cut 7 XML timelines).
  expect(downloads).toHaveLength(7 + 6 + 7);
  for (const href of downloads) expect((await fetch(href, { method: "HEAD" })).status).toBe(200);
  expect(blocked).toEqual([]);
  await page.screenshot({ path: join(SHOTS, "share-page.png"), fullPage: true });
  const missing = await browser.newPage();
  expect((await missing.goto(`${app.baseUrl}/share/not-a-real-token-at-all`))?.status()).toBe(404);
}, 60_000);

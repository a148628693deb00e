import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { signedInPage } from "../helpers/browser.ts";
import { launchChromium, SCREENSHOTS } from "../helpers/chromium.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { CALL_TWO_CLIPS, finishedJob } from "../helpers/finished-job.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { eventually } from "../helpers/wait.ts";
import { testShared } from "../helpers/shared.ts";

/**
 * Issue #20 in real Chromium: a guest approves and rejects clips with the share page's buttons (a
 * same-origin form under the page's strict CSP), and an operator re-renders one clip of a real live
 * job from the dashboard's job page. Screenshots go to test/browser/screenshots/ to be looked at.
 */
let app: TestAppliance;
/** The live job's appliance: its own copy of a finished job (test/helpers/finished-job.ts). */
let live: TestAppliance | undefined;
let browser: Browser;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

// A tenth of real time: the sandbox job takes seconds, not a minute, while the stall watchdog (3 min
// at this scale) still leaves the live job all the time it needs.
const TENTH = { CLIPYARD_TIME_SCALE: "0.1", CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" };
beforeAll(async () => {
  receiver = await startReceiver();
  app = await startAppliance({ env: TENTH });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await live?.stop();
  receiver?.stop();
});

const jobOn = (on: TestAppliance, key: string, id: string) => on.api("GET", `/v1/jobs/${id}`, { key }).then((r) => r.json);
const job = (key: string, id: string) => jobOn(app, key, id);

test("share page: a guest approves one clip and rejects another with the buttons", async () => {
  const key = app.key("guest-review-browser");
  await app.api("POST", "/v1/webhooks", { key, body: { url: receiver.url("/review"), events: ["clip.reviewed"] } });
  const submitted = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json;
  // Sandbox timing at time scale 1 is 10-70 s; this test reads the fixture clips, so it waits that long.
  const done = await eventually(() => job(key, submitted.id), (j) => j.status === "complete", { timeoutMs: 90_000, what: "the sandbox job" });
  const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
  const blocked: string[] = [];
  page.on("console", (m) => m.text().includes("Content Security Policy") && blocked.push(m.text()));
  await page.goto(done.output.guest_share_url);
  await expect(page.locator('article[data-rank="1"]').getAttribute("data-review")).resolves.toBe("none");
  await page.getByRole("button", { name: "Approve clip 1" }).click();
  await page.waitForURL(/#clip-1$/);
  await page.getByRole("button", { name: "Reject clip 2" }).click();
  await page.waitForURL(/#clip-2$/);
  await expect(page.locator('article[data-rank="1"]').getAttribute("data-review")).resolves.toBe("approved");
  await expect(page.locator('article[data-rank="2"]').getAttribute("data-review")).resolves.toBe("rejected");
  await expect(page.locator('article[data-rank="1"] .review').textContent()).resolves.toContain("Approved");
  expect(blocked).toEqual([]);
  await page.locator('article[data-rank="1"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SCREENSHOTS, "share-review.png"), fullPage: true });
  // The API and the webhook receiver saw the same decisions.
  const clips = (await job(key, submitted.id)).output.clips;
  expect(clips.map((c: any) => c.review?.decision ?? null)).toEqual(["approved", "rejected", null]);
  const events = await eventually(() => receiver.requests.filter((r) => r.path === "/review"), (r) => r.length === 2, { what: "two clip.reviewed events" });
  expect(events.map((e) => e.json.data.clip_id).sort()).toEqual([clips[0].id, clips[1].id].sort());
  await page.close();
}, 120_000);

testShared("dashboard job page: Re-render gives one clip of a live job a new caption style; the other stays", async () => {
  // The live job on the call that rerender.test.ts and editing.test.ts start from too, finished.
  const finished = await finishedJob(CALL_TWO_CLIPS.recording(), CALL_TWO_CLIPS.options, { env: TENTH });
  live = finished.app;
  const { key, org, id } = finished;
  const now = () => jobOn(finished.app, key, id);
  const done = await now();
  expect(done.error).toBeNull();
  expect(done.status).toBe("complete");
  // The guest rejects clip 2 (a script holding the link); the job page shows the decision.
  const rejected = await fetch(`${done.output.guest_share_url}/clips/2/review`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "decision=reject" });
  expect(rejected.status).toBe(303);
  const [first, second] = (await now()).output.clips;
  expect(second.review.decision).toBe("rejected");
  expect(second).toBeDefined();
  const page = await signedInPage(browser, finished.app, org);
  await page.goto(`${finished.app.baseUrl}/dashboard/jobs`);
  await page.getByRole("link", { name: id }).click();
  await expect(page.locator('tr[data-clip="1"] [data-review]').textContent()).resolves.toBe("not reviewed");
  await expect(page.locator('tr[data-clip="2"] [data-review]').getAttribute("data-review")).resolves.toBe("rejected");
  await page.getByLabel("Caption style of clip 1").selectOption("boxed");
  await page.locator('form[data-rerender="1"]').getByRole("button", { name: "Re-render" }).click();
  // The page after the post says what happened, as a notice or an error; read whichever came, so a
  // refusal fails with its reason rather than a locator timeout.
  expect(await page.locator(".notice, .error").first().textContent()).toContain("Re-render queued");
  // A poll the key's rate limit turns away (429, no output) is one more poll, not a failure: the render
  // can outlast the limit's window on a loaded machine.
  const after = await eventually(() => now(), (j) => ["complete", "failed"].includes(j.output?.clips?.[0]?.render?.status), { timeoutMs: 200_000, what: "the re-render" });
  expect(after.output.clips[0]).toMatchObject({ caption_style: "boxed", render: { status: "complete", error: null } });
  expect(after.output.clips[0].rendered_urls.x).not.toBe(first.rendered_urls.x);
  expect(after.output.clips[1]).toEqual(second);
  await page.reload();
  await expect(page.locator('tr[data-clip="1"] [data-render]').textContent()).resolves.toBe("complete");
  await expect(page.locator('tr[data-clip="2"]').textContent()).resolves.toContain("original");
  await page.screenshot({ path: join(SCREENSHOTS, "dashboard-rerender.png"), fullPage: true });
  await page.close();
}, 560_000);

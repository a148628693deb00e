import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * Guest review (issue #20): a guest holding only the share link approves or rejects clips with the
 * share page's form; the decision and its time show on the clip in the API, and a clip.reviewed
 * event reaches a real webhook receiver, signed like every event.
 */
let app: TestAppliance;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.005", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_ALLOW_PRIVATE_NETWORK: "1" } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await app.stop();
  receiver.stop();
});

async function completedJob(key: string) {
  const created = await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY });
  return eventually(async () => (await app.api("GET", `/v1/jobs/${created.json.id}`, { key })).json, (j) => j.status === "complete", { what: "the sandbox job to complete" });
}

/** What the share page's form sends from a browser on the page's own origin. */
const review = (shareUrl: string, rank: number, decision: string, headers: Record<string, string> = { "sec-fetch-site": "same-origin", origin: "null" }) =>
  fetch(`${shareUrl}/clips/${rank}/review`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, body: `decision=${decision}` });

test("a guest's approval and rejection show on the clips and each change sends one clip.reviewed event", async () => {
  const key = app.key("review-happy");
  const hook = await app.api("POST", "/v1/webhooks", { key, body: { url: receiver.url("/reviews"), events: ["clip.reviewed"] } });
  expect(hook.status).toBe(201);
  expect(hook.json.events).toEqual(["clip.reviewed"]);
  const job = await completedJob(key);
  expect(job.output.clips.every((c: any) => c.review === undefined)).toBe(true);
  const share = job.output.guest_share_url;

  const approved = await review(share, 1, "approve");
  expect(approved.status).toBe(303);
  expect(approved.headers.get("location")).toBe(`${new URL(share).pathname}#clip-1`);
  // The same decision again changes nothing and announces nothing; a changed one is a new event.
  expect((await review(share, 1, "approve")).status).toBe(303);
  expect((await review(share, 2, "reject")).status).toBe(303);

  const after = (await app.api("GET", `/v1/jobs/${job.id}`, { key })).json;
  const [c1, c2, c3] = after.output.clips;
  expect(c1.review.decision).toBe("approved");
  expect(c2.review.decision).toBe("rejected");
  expect(c3.review).toBeUndefined();
  for (const c of [c1, c2]) expect(Math.abs(Date.parse(c.review.reviewed_at) - Date.now())).toBeLessThan(60_000);

  const events = (await eventually(() => receiver.requests.filter((r) => r.path === "/reviews"), (r) => r.length >= 2, { what: "two clip.reviewed deliveries" })).map((r) => r.json);
  events.sort((a, b) => a.data.clip_rank - b.data.clip_rank);
  expect(events.map((e) => [e.type, e.data.clip_id, e.data.clip_rank])).toEqual([
    ["clip.reviewed", c1.id, 1],
    ["clip.reviewed", c2.id, 2],
  ]);
  // Each event carries the job as GET shows it, with the decision on the reviewed clip.
  expect(events[0].data.object.id).toBe(job.id);
  expect(events[1].data.object.output.clips[1].review.decision).toBe("rejected");
  expect(receiver.requests.find((r) => r.path === "/reviews")!.headers.get("x-service-signature")).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  // Changing one's mind is allowed: the latest decision counts and is announced again.
  expect((await review(share, 1, "reject")).status).toBe(303);
  await eventually(() => receiver.requests.filter((r) => r.path === "/reviews").length, (n) => n === 3, { what: "the third event" });
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json.output.clips[0].review.decision).toBe("rejected");
  // The share page shows the decisions.
  const html = await (await fetch(share)).text();
  expect(html).toContain('data-rank="1" data-review="rejected"');
  expect(html).toContain('data-rank="3" data-review="none"');
});

test("reviews refuse cross-site posts, bad decisions, unknown clips and unknown links, changing nothing", async () => {
  const key = app.key("review-errors");
  const job = await completedJob(key);
  const share = job.output.guest_share_url;
  expect((await review(share, 1, "approve", { "sec-fetch-site": "cross-site", origin: "https://evil.example" })).status).toBe(403);
  expect((await review(share, 1, "approve", { origin: "https://evil.example" })).status).toBe(403);
  expect((await review(share, 1, "approve", { "sec-fetch-site": "same-site" })).status).toBe(403);
  expect((await review(share, 1, "maybe")).status).toBe(400);
  expect((await review(share, 4, "approve")).status).toBe(404);
  expect((await review(share, 0, "approve")).status).toBe(404);
  expect((await review(share.replace(/[^/]{6}$/, "AAAAAA"), 1, "approve")).status).toBe(404);
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key })).json.output.clips.every((c: any) => c.review === undefined)).toBe(true);
  // A script holding the link (no browser headers) may review.
  expect((await review(share, 3, "approve", {})).status).toBe(303);
});

test("a share link's reviews share a budget of 60 a minute, like an API key's writes", async () => {
  const key = app.key("review-budget");
  const job = await completedJob(key);
  const share = job.output.guest_share_url;
  for (let i = 0; i < 60; i++) expect((await review(share, 1 + (i % 3), i % 2 ? "approve" : "reject")).status).toBe(303);
  const over = await review(share, 1, "approve");
  expect(over.status).toBe(429);
  expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
});

/**
 * The per-clip posting copy (extension fields title, description, hashtags) reaches the API's job
 * output, validates against the zod schema the OpenAPI document is generated from, and leaves the
 * spec's own clip fields as they were.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ClipSchema, JobOutputSchema } from "../../src/jobs/schema.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance();
  key = app.key("posting-copy");
});
afterAll(() => app.stop());

const SPEC_CLIP_FIELDS = ["id", "rank", "category", "hook", "pull_quote", "start_time", "end_time", "duration_seconds", "rendered_urls", "transcript_text"];

test("a completed sandbox job's clips carry title, description and hashtags beside the spec's fields", async () => {
  const submitted = await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY });
  expect(submitted.status).toBe(202);
  const deadline = Date.now() + 90_000;
  let job = submitted.json;
  while (job.status !== "complete" && job.status !== "failed" && Date.now() < deadline) {
    await Bun.sleep(25);
    job = (await app.api("GET", `/v1/jobs/${submitted.json.id}`, { key })).json;
  }
  expect(job.status).toBe("complete");
  expect(() => JobOutputSchema.parse(job.output)).not.toThrow();
  for (const c of job.output.clips) {
    for (const f of SPEC_CLIP_FIELDS) expect(c[f]).toBeDefined();
    expect(ClipSchema.parse(c)).toBeTruthy();
    expect(c.title.length).toBeGreaterThan(0);
    expect(c.title.length).toBeLessThanOrEqual(70);
    expect(c.description).toMatch(/[.?!]$/);
    expect(c.hashtags.length).toBeGreaterThanOrEqual(3);
    expect(c.hashtags.length).toBeLessThanOrEqual(5);
    for (const h of c.hashtags) expect(h).toMatch(/^#[\p{L}\p{N}]+$/u);
  }
});

test("the OpenAPI document describes the posting copy as extension fields", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  const clip = JSON.stringify(doc.components.schemas);
  expect(clip).toContain("Extension (posting copy)");
  expect(ClipSchema.shape.title.isOptional()).toBe(true);
  expect(() => ClipSchema.parse({ id: "clip_1", rank: 1, category: "story", hook: "h", pull_quote: "q", start_time: 0, end_time: 20, duration_seconds: 20, rendered_urls: {}, transcript_text: "t", hashtags: ["#a", "#b"] })).toThrow();
  expect(() => ClipSchema.parse({ id: "clip_1", rank: 1, category: "story", hook: "h", pull_quote: "q", start_time: 0, end_time: 20, duration_seconds: 20, rendered_urls: {}, transcript_text: "t", title: "x".repeat(71) })).toThrow();
});

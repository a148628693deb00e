import { expect, test } from "bun:test";
import { presentJob, presentJobJson, PRESENTED_JOBS_MAX } from "../../../src/jobs/present.ts";
import type { JobRow } from "../../../src/db/schema.ts";

// GET /v1/jobs/{id} answers with presentJobJson, which remembers a job's body while its row is
// unchanged: every change to the row must show on the next read, as presentJob would show it.
const queued = {
  id: "job_presentjson",
  status: "queued",
  sourceType: "video_url",
  sourceUrl: "https://x.example/a.mp4",
  options: "{}",
  createdAt: 0,
  completedAt: null,
  errorCode: null,
  errorMessage: null,
  progress: null,
  output: null,
  env: "test",
} as unknown as JobRow;
const ctx = { publicUrl: "http://h", shareSecret: "s" };
const same = (row: JobRow, c = ctx) => expect(JSON.parse(presentJobJson(row, c))).toEqual(JSON.parse(JSON.stringify(presentJob(row, c))));

test("the body is presentJob's, and every change of the row shows on the next read", () => {
  same(queued);
  expect(presentJobJson({ ...queued }, ctx)).toBe(presentJobJson(queued, ctx));
  const processing = { ...queued, status: "processing", progress: JSON.stringify({ stage: "transcribe", percent: 40 }) } as JobRow;
  same(processing);
  expect(JSON.parse(presentJobJson(processing, ctx)).progress).toEqual({ stage: "transcribe", percent: 40 });
  const further = { ...processing, progress: JSON.stringify({ stage: "transcribe", percent: 41 }) } as JobRow;
  expect(JSON.parse(presentJobJson(further, ctx)).progress.percent).toBe(41);
  const failed = { ...further, status: "failed", completedAt: 5000, errorCode: "media_fetch_failed", errorMessage: "refused" } as JobRow;
  same(failed);
  expect(JSON.parse(presentJobJson(failed, ctx)).error).toEqual({ code: "media_fetch_failed", message: "refused" });
});

test("a new public URL or share secret gives a new body", () => {
  const done = { ...queued, id: "job_presentjson_urls", status: "complete", completedAt: 1, output: JSON.stringify({ clips: [], trailer: null, show_notes: "", transcript: [] }) } as unknown as JobRow;
  expect(JSON.parse(presentJobJson(done, ctx)).output.guest_share_url).toStartWith("http://h/share/");
  expect(JSON.parse(presentJobJson(done, { ...ctx, publicUrl: "https://other" })).output.guest_share_url).toStartWith("https://other/share/");
  const a = JSON.parse(presentJobJson(done, { ...ctx, shareSecret: "s1" })).output.guest_share_url;
  const b = JSON.parse(presentJobJson(done, { ...ctx, shareSecret: "s2" })).output.guest_share_url;
  expect(a).not.toBe(b);
});

test("past the remembered count, old jobs are built again, still right", () => {
  for (let i = 0; i < PRESENTED_JOBS_MAX + 10; i++) presentJobJson({ ...queued, id: `job_many_${i}` } as JobRow, ctx);
  const row = { ...queued, id: "job_many_0", status: "processing" } as JobRow;
  expect(JSON.parse(presentJobJson(row, ctx)).status).toBe("processing");
  same({ ...queued, id: "job_many_1" } as JobRow);
});

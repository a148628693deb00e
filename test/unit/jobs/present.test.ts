import { expect, test } from "bun:test";
import { currentJobBody, presentJob, presentJobBody, PRESENTED_JOBS_MAX, rememberedJobBody } from "../../../src/jobs/present.ts";
import type { JobRow } from "../../../src/db/schema.ts";

// GET /v1/jobs/{id} answers with presentJobBody, which remembers a job's body while its row is
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
const same = (row: JobRow, c = ctx) => expect(JSON.parse(presentJobBody(row, c).json)).toEqual(JSON.parse(JSON.stringify(presentJob(row, c))));

test("the body is presentJob's, and every change of the row shows on the next read", () => {
  same(queued);
  expect(presentJobBody({ ...queued }, ctx).json).toBe(presentJobBody(queued, ctx).json);
  const processing = { ...queued, status: "processing", progress: JSON.stringify({ stage: "transcribe", percent: 40 }) } as JobRow;
  same(processing);
  expect(JSON.parse(presentJobBody(processing, ctx).json).progress).toEqual({ stage: "transcribe", percent: 40 });
  const further = { ...processing, progress: JSON.stringify({ stage: "transcribe", percent: 41 }) } as JobRow;
  expect(JSON.parse(presentJobBody(further, ctx).json).progress.percent).toBe(41);
  const failed = { ...further, status: "failed", completedAt: 5000, errorCode: "media_fetch_failed", errorMessage: "refused" } as JobRow;
  same(failed);
  expect(JSON.parse(presentJobBody(failed, ctx).json).error).toEqual({ code: "media_fetch_failed", message: "refused" });
});

test("a new public URL or share secret gives a new body", () => {
  const done = { ...queued, id: "job_presentjson_urls", status: "complete", completedAt: 1, output: JSON.stringify({ clips: [], trailer: null, show_notes: "", transcript: [] }) } as unknown as JobRow;
  expect(JSON.parse(presentJobBody(done, ctx).json).output.guest_share_url).toStartWith("http://h/share/");
  expect(JSON.parse(presentJobBody(done, { ...ctx, publicUrl: "https://other" }).json).output.guest_share_url).toStartWith("https://other/share/");
  const a = JSON.parse(presentJobBody(done, { ...ctx, shareSecret: "s1" }).json).output.guest_share_url;
  const b = JSON.parse(presentJobBody(done, { ...ctx, shareSecret: "s2" }).json).output.guest_share_url;
  expect(a).not.toBe(b);
});

test("past the remembered count, old jobs are built again, still right", () => {
  for (let i = 0; i < PRESENTED_JOBS_MAX + 10; i++) presentJobBody({ ...queued, id: `job_many_${i}` } as JobRow, ctx);
  const row = { ...queued, id: "job_many_0", status: "processing" } as JobRow;
  expect(JSON.parse(presentJobBody(row, ctx).json).status).toBe("processing");
  same({ ...queued, id: "job_many_1" } as JobRow);
});

test("the body's bytes are its JSON text in UTF-8, non-ASCII included, typed as JSON", async () => {
  const done = { ...queued, id: "job_presentjson_bytes", status: "complete", completedAt: 1, output: JSON.stringify({ clips: [], trailer: null, show_notes: "Café — “quoted” … 日本", transcript: [] }) } as unknown as JobRow;
  const body = presentJobBody(done, ctx);
  expect(body.json).toContain("Café — “quoted” … 日本");
  expect(new Uint8Array(await body.blob.arrayBuffer())).toEqual(new TextEncoder().encode(body.json));
  expect(body.blob.type).toBe("application/json;charset=utf-8");
  // Remembered: the same bytes for the same row, not encoded again.
  expect(presentJobBody({ ...done }, ctx).blob).toBe(body.blob);
});

test("a body is current only at the commit epoch its row or version was read at, and only in the job's own scope", () => {
  const row = { ...queued, id: "job_presentjson_epoch", orgId: "org_e", version: 3 } as unknown as JobRow;
  const scope = { orgId: "org_e", env: "test" };
  const body = presentJobBody(row, ctx, 5);
  expect(currentJobBody(row.id, scope, 5, ctx)).toBe(body);
  // Something committed since (the epoch moved): the version must be read again.
  expect(currentJobBody(row.id, scope, 6, ctx)).toBeUndefined();
  expect(currentJobBody(row.id, scope, undefined, ctx)).toBeUndefined();
  // Read again at 6, unchanged: current at 6.
  expect(rememberedJobBody(row.id, 3, ctx, 6)).toBe(body);
  expect(currentJobBody(row.id, scope, 6, ctx)).toBe(body);
  // Never for another organisation or world, nor for other URLs.
  expect(currentJobBody(row.id, { ...scope, orgId: "org_other" }, 6, ctx)).toBeUndefined();
  expect(currentJobBody(row.id, { ...scope, env: "live" }, 6, ctx)).toBeUndefined();
  expect(currentJobBody(row.id, scope, 6, { ...ctx, publicUrl: "https://other" })).toBeUndefined();
  expect(currentJobBody(row.id, scope, 6, { ...ctx, shareSecret: "other" })).toBeUndefined();
  expect(rememberedJobBody(row.id, 3, { ...ctx, shareSecret: "other" }, 6)).toBeUndefined();
  expect(rememberedJobBody(row.id, 3, { ...ctx, publicUrl: "https://other" }, 6)).toBeUndefined();
  // A version that does not match is not remembered, and leaves the body not current.
  expect(rememberedJobBody(row.id, 4, ctx, 7)).toBeUndefined();
  expect(currentJobBody(row.id, scope, 7, ctx)).toBeUndefined();
});

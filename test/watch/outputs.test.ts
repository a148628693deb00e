import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JobRow } from "../../src/db/schema.ts";
import { jobOutputDir, type StoredOutput } from "../../src/pipeline/output.ts";
import { OUTPUT_FOLDER, removeOutputLeftovers, writeJobFolder } from "../../src/watch/outputs.ts";

const dataDir = mkdtempSync(join(tmpdir(), "clipyard-watch-out-data-"));
const watchDir = mkdtempSync(join(tmpdir(), "clipyard-watch-out-"));
const present = { publicUrl: "http://127.0.0.1:1", shareSecret: "s".repeat(32) };
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(watchDir, { recursive: true, force: true });
});

function job(id: string, status: "complete" | "failed", files: Record<string, string> = {}): JobRow {
  const out = jobOutputDir(dataDir, id);
  mkdirSync(out, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(out, name), text);
  const output: StoredOutput = {
    clips: [{ id: "clip_1", rank: 1, category: "insight", hook: "h", pull_quote: "q", start_time: 0, end_time: 6, duration_seconds: 6, transcript_text: "t", files: { x: "job:clip1_x.mp4" } }],
    trailer: null,
    show_notes: "# Notes",
    transcript: [],
  };
  return {
    seq: 1, id, orgId: "org_1", env: "live", status, sourceType: "upload", sourceUrl: "upl_1", options: "{}", createdAt: 0, startedAt: 0, completedAt: 1,
    output: status === "complete" ? JSON.stringify(output) : null, errorCode: status === "failed" ? "transcription_failed" : null,
    errorMessage: status === "failed" ? "no speech" : null, runAfter: 0, leaseOwner: null, leaseExpiresAt: null, attempts: 1, progress: null, shareTokenHash: null, requestId: "req_1",
  } as JobRow;
}

test("a complete job's folder holds every file the job wrote and job.json naming them locally", () => {
  const at = writeJobFolder({ dataDir, present, watchDir, name: "ep.wav", job: job("job_a", "complete", { "clip1_x.mp4": "video", "notes.md": "# Notes" }) });
  expect(at).toBe(join(watchDir, OUTPUT_FOLDER, "ep.wav"));
  expect(readdirSync(at).sort()).toEqual(["clip1_x.mp4", "job.json", "notes.md"]);
  const json = JSON.parse(readFileSync(join(at, "job.json"), "utf8"));
  expect(json).toMatchObject({ id: "job_a", object: "job", status: "complete", livemode: true, source: { type: "upload", upload_id: "upl_1" } });
  expect(json.output.clips[0].rendered_urls).toEqual({ x: "clip1_x.mp4" });
});

test("a newer result replaces the older folder whole, leaving nothing half-written beside it", () => {
  writeJobFolder({ dataDir, present, watchDir, name: "ep.wav", job: job("job_b", "complete", { "clip1_x.mp4": "video v2", "notes.md": "# Notes v2" }) });
  const at = join(watchDir, OUTPUT_FOLDER, "ep.wav");
  expect(readFileSync(join(at, "notes.md"), "utf8")).toBe("# Notes v2");
  expect(JSON.parse(readFileSync(join(at, "job.json"), "utf8")).id).toBe("job_b");
  expect(readdirSync(join(watchDir, OUTPUT_FOLDER))).toEqual(["ep.wav"]);
});

test("a failed job's folder holds job.json with its error, and a killed run's leftovers are removed", () => {
  const at = writeJobFolder({ dataDir, present, watchDir, name: "bad.wav", job: job("job_c", "failed") });
  expect(readdirSync(at)).toEqual(["job.json"]);
  expect(JSON.parse(readFileSync(join(at, "job.json"), "utf8"))).toMatchObject({ status: "failed", output: null, error: { code: "transcription_failed" } });
  mkdirSync(join(watchDir, OUTPUT_FOLDER, ".partial-abc"));
  writeFileSync(join(watchDir, OUTPUT_FOLDER, ".partial-abc", "clip1_x.mp4"), "half");
  mkdirSync(join(watchDir, OUTPUT_FOLDER, ".replaced-def"));
  removeOutputLeftovers(watchDir);
  expect(readdirSync(join(watchDir, OUTPUT_FOLDER)).sort()).toEqual(["bad.wav", "ep.wav"]);
  expect(existsSync(join(watchDir, OUTPUT_FOLDER, "ep.wav", "job.json"))).toBe(true);
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { priceCents } from "../../src/billing/pricing.ts";
import { grantCredits } from "../../src/billing/topups.ts";
import { ingestFile, type IngestDeps, type WatchedFile } from "../../src/watch/ingest.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { speechWav } from "../helpers/speech.ts";

/**
 * The ingest step against a real appliance (SQLite, uploads folder, billing), the scheduler off so
 * jobs stay queued: exactly once per file version, and a billing refusal that leaves nothing behind
 * so a later scan can try again.
 */
let app: TestAppliance;
let deps: IngestDeps;
const folder = mkdtempSync(join(tmpdir(), "clipyard-ingest-"));
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
  deps = { db: app.ctx.db, clock: app.ctx.clock, dataDir: app.dataDir, uploads: app.ctx.uploads, timeScale: 1, liveEffects: app.ctx.submitEffects };
});
afterAll(async () => {
  await app.stop();
  rmSync(folder, { recursive: true, force: true });
});

function place(name: string): WatchedFile {
  copyFileSync(speechWav(), join(folder, name));
  const s = statSync(join(folder, name));
  return { folder, name, stamp: { size: s.size, mtimeMs: Math.trunc(s.mtimeMs) } };
}
const count = (table: string) => (app.ctx.db.$client.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

test("a file version makes one job however often it is offered; past the free tier an empty wallet refuses and a top-up lets the retry through", async () => {
  const scope = { orgId: ensureOrg(app.ctx.db, "ingest", app.ctx.clock).id, env: "live" as const };
  const ingest = (f: WatchedFile) => ingestFile(deps, scope, {}, f, "req_test");

  const first = place("a.wav");
  const made = await ingest(first);
  expect(made.kind).toBe("job");
  // Offered again (a restart, a second watcher): the primary key refuses it and its copy is discarded.
  expect(await ingest(first)).toEqual({ kind: "gone" });
  expect([count("jobs"), count("uploads"), count("watch_files")]).toEqual([1, 1, 1]);

  // Two more use up the free tier; the fourth is refused by billing and leaves no trace.
  expect((await ingest(place("b.wav"))).kind).toBe("job");
  expect((await ingest(place("c.wav"))).kind).toBe("job");
  const fourth = place("d.wav");
  const refused = await ingest(fourth);
  expect(refused).toMatchObject({ kind: "refused", problem: expect.stringContaining("insufficient_balance") });
  expect([count("jobs"), count("uploads"), count("watch_files")]).toEqual([3, 3, 3]);

  grantCredits(app.ctx.db, scope.orgId, Math.max(500, priceCents("upload")), app.ctx.clock.now(), "test");
  const retried = await ingest(fourth);
  expect(retried.kind).toBe("job");
  const job = app.ctx.db.$client.query("SELECT source_type, source_url, env FROM jobs WHERE id = ?").get(retried.kind === "job" ? retried.jobId : "") as any;
  expect(job).toMatchObject({ source_type: "upload", env: "live" });
  const upload = app.ctx.db.$client.query("SELECT size, filename, status FROM uploads WHERE id = ?").get(job.source_url);
  expect(upload).toEqual({ size: fourth.stamp.size, filename: "d.wav", status: "complete" });
});

test("a newer version of the same file (changed size or mtime) is a new job", async () => {
  const scope = { orgId: ensureOrg(app.ctx.db, "versions", app.ctx.clock).id, env: "live" as const };
  const v1 = place("e.wav");
  expect((await ingestFile(deps, scope, {}, v1, "req_test")).kind).toBe("job");
  const v2 = { ...v1, stamp: { ...v1.stamp, mtimeMs: v1.stamp.mtimeMs + 1000 } };
  // The file on disk still has v1's mtime: a copy whose file changed under it is dropped, unrecorded.
  expect(await ingestFile(deps, scope, {}, v2, "req_test")).toEqual({ kind: "gone" });
  const touched = place("e.wav");
  expect(touched.stamp).not.toEqual(v1.stamp);
  expect((await ingestFile(deps, scope, {}, touched, "req_test")).kind).toBe("job");
});

#!/usr/bin/env bun
/**
 * Billing throughput: how long the money work adds to a live submission (hold) and to a completion
 * (FIFO debit + charge), measured on a real database file with the effects installed as in the
 * appliance. Each row is one transaction per operation with fsync on commit (synchronous = FULL).
 * Usage: bun scripts/bench/billing.ts [jobs=500]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { loadBillingConfig } from "../../src/billing/config.ts";
import { Billing } from "../../src/billing/service.ts";
import { grantCredits } from "../../src/billing/topups.ts";
import { walletSummary } from "../../src/billing/wallet.ts";
import { systemClock } from "../../src/clock.ts";
import { openDbFile } from "../../src/db/client.ts";
import { submitJob, type SubmitEffect } from "../../src/jobs/submit.ts";
import { JobTransitions } from "../../src/jobs/transitions.ts";

const N = Number(process.argv[2] ?? 500);
const dir = mkdtempSync(join(tmpdir(), "clipyard-bench-billing-"));
const db = openDbFile(join(dir, "clipyard.sqlite"));
const transitions = new JobTransitions(db, systemClock, "bench");
const effects: SubmitEffect[] = [];
new Billing(db, systemClock, loadBillingConfig({})).install(transitions, effects);
const org = ensureOrg(db, "bench", systemClock).id;
// Many small lots so debits walk the FIFO order across lots.
for (let i = 0; i < Math.ceil((N * 300) / 50_000) + 1; i++) grantCredits(db, org, 50_000, systemClock.now());

function time<T>(fn: () => T): [T, number] {
  const t = performance.now();
  const out = fn();
  return [out, performance.now() - t];
}

const body = { source: { type: "video_url", url: "https://media.example.com/e.mp4" } } as Parameters<typeof submitJob>[3];
const submitMs: number[] = [];
const plainMs: number[] = [];
const completeMs: number[] = [];
const ids: string[] = [];
for (let i = 0; i < N; i++) {
  const [r, ms] = time(() => submitJob(db, systemClock, { orgId: org, env: "live" }, body, { requestId: `r${i}`, timeScale: 1, effects }));
  submitMs.push(ms);
  ids.push(r.job.id);
  // The same submission without billing (a sandbox job) for comparison.
  plainMs.push(time(() => submitJob(db, systemClock, { orgId: org, env: "test" }, body, { requestId: `s${i}`, timeScale: 1, effects: [] }))[1]);
}
for (const id of ids) completeMs.push(time(() => transitions.complete(id, { clips: [], trailer: null, show_notes: "", transcript: [] }, { from: ["queued"] }))[1]);
const completeSandboxMs: number[] = [];
const sandboxIds = db.$client.query("SELECT id FROM jobs WHERE env = 'test'").all() as { id: string }[];
for (const { id } of sandboxIds) completeSandboxMs.push(time(() => transitions.complete(id, { clips: [], trailer: null, show_notes: "", transcript: [] }, { from: ["queued"] }))[1]);

const s = walletSummary(db, org, systemClock.now());
const expected = (N - 3) * 300;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const row = (name: string, xs: number[]) =>
  `| ${name.padEnd(38)} | ${String(xs.length).padStart(5)} | ${pct(xs, 0.5).toFixed(3).padStart(8)} | ${pct(xs, 0.95).toFixed(3).padStart(8)} | ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3).padStart(8)} |`;
console.log(`billing bench: ${N} live + ${N} sandbox jobs, ${process.platform}/${process.arch}, bun ${Bun.version}`);
console.log(`| operation                              |     n |   p50 ms |   p95 ms |  mean ms |`);
console.log(`|----------------------------------------|-------|----------|----------|----------|`);
console.log(row("submit live (with hold)", submitMs));
console.log(row("submit sandbox (no billing)", plainMs));
console.log(row("complete live (FIFO debit + charge)", completeMs));
console.log(row("complete sandbox (no billing)", completeSandboxMs));
const charged = (db.$client.query("SELECT sum(charged_cents) AS c FROM job_charges").get() as { c: number }).c;
console.log(`charged ${charged} ¢ (expected ${expected} ¢: ${N - 3} paid jobs × 300 ¢); held now ${s.heldCents} ¢; ${s.freeJobsRemaining} free jobs left`);
if (charged !== expected) throw new Error(`charged ${charged} ¢, expected ${expected} ¢`);
db.$client.close();
rmSync(dir, { recursive: true, force: true });

/**
 * A second writer for the concurrency tests: its own thread, its own SQLite connection to the same
 * file, the same billing effects the appliance installs. Waits for "go" so all writers start together.
 */
import { ApiError } from "../../src/errors.ts";
import { Billing } from "../../src/billing/service.ts";
import { loadBillingConfig } from "../../src/billing/config.ts";
import { ManualClock } from "../../src/clock.ts";
import { openDb, type DbLocation } from "../../src/db/client.ts";
import { submitJob, type SubmitEffect } from "../../src/jobs/submit.ts";
import { JobTransitions } from "../../src/jobs/transitions.ts";
import { EMPTY_OUTPUT, SOURCES } from "./helpers.ts";

declare const self: Worker;

type Task =
  | { op: "complete"; jobIds: string[] }
  | { op: "fail"; jobIds: string[] }
  | { op: "submit"; orgId: string; count: number; type: keyof typeof SOURCES };

let task: Task;
let location: DbLocation;
let clock: ManualClock;

self.onmessage = (ev: MessageEvent) => {
  const msg = ev.data as { setup?: { location: DbLocation; task: Task; now: number }; go?: true };
  if (msg.setup) {
    location = msg.setup.location;
    task = msg.setup.task;
    // The test's injected time, so lot expiry never depends on the real date.
    clock = new ManualClock(msg.setup.now);
    self.postMessage({ ready: true });
    return;
  }
  const db = openDb(location);
  const transitions = new JobTransitions(db, clock, "test-share-secret");
  const effects: SubmitEffect[] = [];
  new Billing(db, clock, loadBillingConfig({})).install(transitions, effects);
  const out = { done: 0, refused: 0, errors: [] as string[] };
  const guard = { from: ["queued", "processing"] as ("queued" | "processing")[] };
  for (let i = 0; i < (task.op === "submit" ? task.count : task.jobIds.length); i++) {
    try {
      if (task.op === "complete") out.done += transitions.complete(task.jobIds[i]!, EMPTY_OUTPUT, guard) ? 1 : 0;
      else if (task.op === "fail") out.done += transitions.fail(task.jobIds[i]!, "analysis_failed", "x", guard) ? 1 : 0;
      else {
        const body = { source: { type: task.type, url: SOURCES[task.type] } } as Parameters<typeof submitJob>[3];
        submitJob(db, clock, { orgId: task.orgId, env: "live" }, body, { requestId: `req_w${i}`, timeScale: 1, effects });
        out.done++;
      }
    } catch (err) {
      if (err instanceof ApiError && err.code === "insufficient_balance") out.refused++;
      else out.errors.push(String(err));
    }
  }
  db.$client.close();
  self.postMessage({ result: out });
};

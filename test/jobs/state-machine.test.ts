import { afterEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { getJobById } from "../../src/jobs/store.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
afterEach(async () => app?.stop());

/** Appliance on a manual clock; the test drives the scheduler tick by tick (time scale 1). */
async function manual() {
  const clock = new ManualClock(Date.UTC(2026, 5, 1));
  app = await startAppliance({ clock, scheduler: false, env: { CLIPYARD_TIME_SCALE: "1" } });
  return clock;
}

async function submit(key: string, body: unknown = VIDEO_BODY) {
  const res = await app.api("POST", "/v1/jobs", { key, body });
  expect(res.status).toBe(202);
  return res.json.id as string;
}

const status = (id: string) => getJobById(app.ctx.db, id)!.status;

describe("sandbox jobs", () => {
  test("queued -> processing -> failed at the deterministic time, 10-70 s after submission", async () => {
    const clock = await manual();
    const key = app.key("sm");
    const id = await submit(key, { source: { type: "video_url", url: "https://x.example.com/FAIL.mp4" } });
    const finishAt = app.ctx.db.$client.query("SELECT created_at FROM jobs WHERE id = ?").get(id) as { created_at: number };
    const seen: string[] = [status(id)];
    for (let t = 0; t <= 71_000; t += 500) {
      clock.set(finishAt.created_at + t);
      app.scheduler.tick();
      if (seen.at(-1) !== status(id)) seen.push(status(id));
      if (status(id) === "failed") {
        expect(t).toBeGreaterThanOrEqual(10_000);
        expect(t).toBeLessThanOrEqual(70_500);
        break;
      }
    }
    expect(seen).toEqual(["queued", "processing", "failed"]);
    const job = (await app.api("GET", `/v1/jobs/${id}`, { key })).json;
    expect(job.error).toEqual({ code: "transcription_failed", message: expect.any(String) });
    expect(job.output).toBeNull();
    expect(job.completed_at).not.toBeNull();
  });

  test("youtube sources fail with youtube_ingestion_failed; terminal jobs never change", async () => {
    const clock = await manual();
    const key = app.key("sm");
    const id = await submit(key, { source: { type: "youtube_url", url: "https://youtu.be/dQw4w9WgXcQ" } });
    clock.advance(71_000);
    app.scheduler.tick();
    app.scheduler.tick();
    expect(status(id)).toBe("failed");
    const before = getJobById(app.ctx.db, id);
    expect(before!.errorCode).toBe("youtube_ingestion_failed");
    // A second transition attempt from any state is refused by its guard.
    expect(app.ctx.transitions.fail(id, "analysis_failed", "x", { from: ["queued", "processing"] })).toBeUndefined();
    clock.advance(3_600_000);
    app.scheduler.tick();
    expect(getJobById(app.ctx.db, id)).toEqual(before);
  });

  test("same submission, same timing: the sandbox is deterministic", async () => {
    const clock = await manual();
    const key = app.key("sm");
    const a = await submit(key);
    const b = await submit(key);
    const runner = (app.scheduler as any).sandbox;
    clock.advance(60_000);
    app.scheduler.tick();
    const ja = getJobById(app.ctx.db, a)!;
    const jb = getJobById(app.ctx.db, b)!;
    expect(runner.finishAt(ja) - ja.createdAt).toBe(runner.finishAt(jb) - jb.createdAt);
  });
});

describe("stall watchdog", () => {
  test("a job without a terminal state after 30 minutes fails with pipeline_stalled, and only then", async () => {
    const clock = await manual();
    const key = app.key("sm", "live");
    // A live job with no worker slot free never starts: make the scheduler have no workers.
    (app.scheduler as any).opts.workers = 0;
    const id = await submit(key);
    clock.advance(30 * 60_000 - 1);
    app.scheduler.tick();
    expect(status(id)).toBe("queued");
    clock.advance(2);
    app.scheduler.tick();
    const row = getJobById(app.ctx.db, id)!;
    expect(row.status).toBe("failed");
    expect(row.errorCode).toBe("pipeline_stalled");
  });

  test("the watchdog budget follows CLIPYARD_TIME_SCALE", async () => {
    const clock = new ManualClock(Date.UTC(2026, 5, 1));
    app = await startAppliance({ clock, scheduler: false, env: { CLIPYARD_TIME_SCALE: "0.1" } });
    (app.scheduler as any).opts.workers = 0;
    const id = await submit(app.key("sm", "live"));
    clock.advance(3 * 60_000 + 1);
    app.scheduler.tick();
    expect(getJobById(app.ctx.db, id)!.errorCode).toBe("pipeline_stalled");
  });
});

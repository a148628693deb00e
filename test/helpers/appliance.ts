import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKey } from "../../src/accounts/keys.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { buildAppliance, type Appliance } from "../../src/appliance.ts";
import { systemClock, type Clock } from "../../src/clock.ts";
import { loadConfig } from "../../src/config.ts";
import { testDbEnv } from "./db.ts";
import { eventually } from "./wait.ts";

export interface TestAppliance extends Omit<Appliance, "api"> {
  http: Appliance["api"];
  baseUrl: string;
  dataDir: string;
  key(org: string, env?: "test" | "live"): string;
  api(method: string, path: string, opts?: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; headers: Headers; json: any; text: string }>;
  stop(): Promise<void>;
}

/** A real appliance (real SQLite, real HTTP server on a free port) in this process. */
export async function startAppliance(opts: { clock?: Clock; env?: Record<string, string>; scheduler?: boolean; dataDir?: string; keepDataDir?: boolean } = {}): Promise<TestAppliance> {
  // A given data folder is opened as it is (test/helpers/finished-job.ts hands one with a job in it).
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "clipyard-test-"));
  const config = loadConfig({ CLIPYARD_DATA_DIR: dataDir, CLIPYARD_PORT: "0", CLIPYARD_TIME_SCALE: "0.01", ...testDbEnv(dataDir), ...opts.env });
  const clock = opts.clock ?? systemClock;
  const appliance = buildAppliance(config, clock);
  appliance.api.listen({ hostname: "127.0.0.1", port: 0 });
  const port = appliance.api.server!.port;
  const baseUrl = `http://127.0.0.1:${port}`;
  // URLs the API returns must point at this server.
  appliance.ctx.present.publicUrl = baseUrl;
  if (opts.scheduler !== false) {
    appliance.scheduler.start();
    appliance.deliveries.start();
    appliance.renders.start();
    appliance.feeds.start();
  }
  return {
    ctx: appliance.ctx,
    scheduler: appliance.scheduler,
    deliveries: appliance.deliveries,
    feeds: appliance.feeds,
    renders: appliance.renders,
    http: appliance.api,
    baseUrl,
    dataDir,
    key(org, env = "test") {
      return createKey(appliance.ctx.db, ensureOrg(appliance.ctx.db, org, clock).id, env, clock).key;
    },
    async api(method, path, { key, body, raw, headers = {} } = {}) {
      const h: Record<string, string> = { ...headers };
      if (key) h.authorization = `Bearer ${key}`;
      const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
      if (payload !== undefined) h["content-type"] ??= "application/json";
      const res = await fetch(baseUrl + path, { method, headers: h, body: payload });
      const text = await res.text();
      let json: any = null;
      try {
        json = text ? JSON.parse(text) : null;
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, json, text };
    },
    async stop() {
      await appliance.scheduler.stop(100);
      await appliance.deliveries.stop();
      await appliance.renders.stop();
      await appliance.feeds.stop();
      await appliance.api.stop(true);
      appliance.ctx.db.$client.close();
      if (!opts.keepDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const VIDEO_BODY = { source: { type: "video_url", url: "https://media.example.com/episode.mp4" } };

/** Submits a job through the API and polls it until it is complete or failed (its final state). */
export async function submitAndSettle(app: TestAppliance, key: string, body: unknown): Promise<{ created: { status: number; json: any }; job: any }> {
  const created = await app.api("POST", "/v1/jobs", { key, body });
  const job = await eventually(async () => (await app.api("GET", `/v1/jobs/${created.json.id}`, { key })).json, (j) => j.status === "complete" || j.status === "failed", { what: `job ${created.json.id} to finish` });
  return { created, job };
}

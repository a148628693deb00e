/**
 * kill -9 of the appliance mid-transcription and mid-render: its children (the Python speech worker,
 * ffmpeg) must die with it, not keep working as orphans, and the next start removes the dead run's
 * work folders. The appliance runs as its own OS process with a private TMPDIR, so only its own
 * folders are looked at.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startMediaServer } from "../helpers/media-server.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { childrenOf, isWorking, until } from "../helpers/procfs.ts";
import { testShared } from "../helpers/shared.ts";

let server: ServerProcess | undefined;
let media: ReturnType<typeof startMediaServer>;
let scratch: string;

beforeAll(() => {
  media = startMediaServer();
  scratch = mkdtempSync(join(tmpdir(), "clipyard-crash-tmp-"));
});
afterEach(async () => {
  if (server?.proc && server.proc.exitCode === null) await server.kill9();
});
afterAll(() => {
  media.stop();
  rmSync(scratch, { recursive: true, force: true });
});

const folders = (kind: string, pid: number) => readdirSync(scratch).filter((n) => n.startsWith(`clipyard-${kind}-${pid}-`));

async function startServer(env: Record<string, string>, dataDir?: string): Promise<ServerProcess> {
  const s = new ServerProcess(freePort(), env, dataDir);
  await s.start();
  return s;
}

testShared("kill -9 mid-transcription and mid-render: no child survives, and the next start removes the dead run's work folders", async () => {
  // A 5 s lease: the killed run's job is taken over 5 s after the restart instead of a minute.
  const env = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "1", TMPDIR: scratch, CLIPYARD_LEASE_SECONDS: "5" };
  server = await startServer(env);
  const key = await server.cli("keys", "create", "--org", "crash", "--env", "live");
  const job = await server.api("POST", "/v1/jobs", key, {
    source: { type: "video_url", url: media.url("two_speakers_call.wav") },
    options: { clip_count: 1, min_clip_seconds: 6, max_clip_seconds: 20 },
  });
  expect(job.id).toMatch(/^job_/);

  // 1. Mid-transcription: the speech worker is running, with its work folder.
  let pid = server.proc!.pid;
  const worker = await until("the speech worker", () => childrenOf(pid).find((c) => c.comm.startsWith("python") && folders("asr", pid).length > 0), 120_000);
  expect(await server.kill9()).not.toBe(0);
  await until("the speech worker to die with the appliance", () => !isWorking(worker.pid), 10_000);
  const asrLeft = folders("asr", pid);
  expect(asrLeft.length).toBeGreaterThan(0); // no cleanup ran: this is what start-up must handle

  // 2. A new start on the same data: the dead run's folders go; the job resumes and reaches render.
  server = await startServer(env, server.dataDir);
  for (const name of asrLeft) expect(existsSync(join(scratch, name))).toBe(false);
  pid = server.proc!.pid;
  const encoders = await until("ffmpeg rendering", () => {
    const ff = childrenOf(pid).filter((c) => c.comm === "ffmpeg");
    return ff.length > 0 && folders("render", pid).length > 0 && ff;
  }, 240_000);
  expect(await server.kill9()).not.toBe(0);
  for (const ff of encoders) await until(`ffmpeg ${ff.pid} to die with the appliance`, () => !isWorking(ff.pid), 10_000);
  const renderLeft = folders("render", pid);
  expect(renderLeft.length).toBeGreaterThan(0);

  // 3. Start-up removes them too, and leaves alone the folders of a process still running (this one).
  const mine = mkdtempSync(join(scratch, `clipyard-render-${process.pid}-`));
  server = await startServer(env, server.dataDir);
  for (const name of renderLeft) expect(existsSync(join(scratch, name))).toBe(false);
  expect(existsSync(mine)).toBe(true);
}, 420_000);

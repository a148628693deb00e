import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, rmSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { uploadsDir } from "../../src/pipeline/acquire.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { tusClient } from "../helpers/uploads.ts";
import { eventually } from "../helpers/wait.ts";
import { smallDisk } from "../helpers/tmpfs.ts";

/**
 * A full data disk (issue 36): the appliance keeps a free-space reserve, refuses uploads and new jobs
 * with 507 insufficient_storage under it, answers a real ENOSPC the same way without dying, and caps
 * each organisation's uploads. The disk is a real 64 MiB tmpfs, so the kernel says ENOSPC itself.
 */
const MiB = 1024 * 1024;
const { disk, onTmpfs, cleanup: cleanupDisk } = smallDisk(64, "clipyard-disk-");

let server: ServerProcess | undefined;
afterAll(async () => {
  if (server?.proc && server.proc.exitCode === null) await server.kill9();
  cleanupDisk();
});

/** Fills the disk until only `leave` bytes stay free; returns the filler to remove afterwards. */
function fill(leave: number): string {
  const path = join(disk, `filler-${Date.now()}`);
  const { bavail, bsize } = statfsSync(disk);
  writeFileSync(path, Buffer.alloc(Math.max(0, bavail * bsize - leave)));
  return path;
}

/** A body of `bytes` streamed without Content-Length, as `curl -T -` sends a pipe. */
function chunked(bytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= bytes) return c.close();
      sent += MiB;
      c.enqueue(new Uint8Array(MiB).fill(9));
    },
  });
}

async function startServer(env: Record<string, string>): Promise<{ key: string; other: string }> {
  server = new ServerProcess(freePort(), env, disk);
  server.logName = "../server.log"; // beside the tmpfs, so a full disk does not cut the log that explains a failure
  await server.start();
  return {
    key: await server.cli("keys", "create", "--org", "disk-a", "--env", "test"),
    other: await server.cli("keys", "create", "--org", "disk-b", "--env", "test"),
  };
}

const partials = () => readdirSync(uploadsDir(disk)).filter((n) => n.endsWith(".partial"));

onTmpfs("a real ENOSPC mid-upload (raw and tus) is a 507 envelope, the partial raw file is gone, and the server answers the next request", async () => {
  const { key } = await startServer({ CLIPYARD_DISK_RESERVE_BYTES: "0" });
  const auth = { authorization: `Bearer ${key}` };
  // Created while there is room (a creation must fit its whole length); its PATCH will run the disk out.
  const created = await fetch(`${server!.baseUrl}/v1/uploads`, { method: "POST", headers: { ...auth, "tus-resumable": "1.0.0", "upload-length": String(24 * MiB) } });
  expect(created.status).toBe(201);
  const filler = fill(6 * MiB);
  try {
    // Raw, no Content-Length: nothing to refuse up front, so the write itself hits ENOSPC.
    const raw = await fetch(`${server!.baseUrl}/v1/uploads`, { method: "POST", headers: { ...auth, "content-type": "application/octet-stream" }, body: chunked(24 * MiB) });
    expect(raw.status).toBe(507);
    const body = (await raw.json()) as any;
    expect(body.error).toMatchObject({ code: "insufficient_storage", type: "api_error", param: null, request_id: raw.headers.get("x-request-id") });
    expect(partials()).toEqual([]);
    expect(server!.proc!.exitCode).toBeNull();
    expect((await fetch(`${server!.baseUrl}/healthz`)).status).toBe(200);

    // tus, chunked PATCH (no Content-Length to check against the disk): the write hits ENOSPC.
    const url = created.headers.get("location")!;
    const tus = { ...auth, "tus-resumable": "1.0.0" };
    const patch = await fetch(url, { method: "PATCH", headers: { ...tus, "upload-offset": "0", "content-type": "application/offset+octet-stream" }, body: chunked(24 * MiB) });
    expect(patch.status).toBe(507);
    expect(((await patch.json()) as any).error.code).toBe("insufficient_storage");
    expect(server!.proc!.exitCode).toBeNull();
    expect((await fetch(`${server!.baseUrl}/v1/uploads/${url.split("/").pop()}`, { headers: auth })).status).toBe(200);

    // Space freed: the tus upload resumes from what it kept and completes.
    rmSync(filler, { force: true });
    const offset = Number((await fetch(url, { method: "HEAD", headers: tus })).headers.get("upload-offset"));
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(24 * MiB);
    const rest = await fetch(url, { method: "PATCH", headers: { ...tus, "upload-offset": String(offset), "content-type": "application/offset+octet-stream" }, body: new Uint8Array(24 * MiB - offset) });
    expect(rest.status).toBe(204);
  } finally {
    rmSync(filler, { force: true });
    await server!.kill9();
  }
}, 180_000);

onTmpfs("under the free-space reserve, uploads (raw, tus creation, PATCH), new jobs and re-renders are refused with 507 insufficient_storage", async () => {
  const { key } = await startServer({ CLIPYARD_DISK_RESERVE_BYTES: String(16 * MiB), CLIPYARD_TIME_SCALE: "0.005" });
  const auth = { authorization: `Bearer ${key}` };
  const job = { source: { type: "video_url", url: "https://media.example.com/episode.mp4" } };
  try {
    // A finished sandbox job, to ask a re-render of once the disk is low.
    const done = await server!.api("POST", "/v1/jobs", key, job);
    const finished = await eventually(() => server!.api("GET", `/v1/jobs/${done.id}`, key), (j) => j.status === "complete", { what: "the sandbox job" });
    const clip = finished.output.clips[0].id;

    // An upload that would eat into the reserve is refused before a byte is written.
    const free = statfsSync(disk).bavail * statfsSync(disk).bsize;
    const big = await fetch(`${server!.baseUrl}/v1/uploads`, { method: "POST", headers: { ...auth, "content-type": "application/octet-stream" }, body: new Uint8Array(free - 8 * MiB) });
    expect(big.status).toBe(507);
    expect(((await big.json()) as any).error).toMatchObject({ code: "insufficient_storage", message: expect.stringContaining("reserve") });
    const tusBig = await fetch(`${server!.baseUrl}/v1/uploads`, { method: "POST", headers: { ...auth, "tus-resumable": "1.0.0", "upload-length": String(free - 8 * MiB) } });
    expect(tusBig.status).toBe(507);
    expect(partials()).toEqual([]);

    const small = await fetch(`${server!.baseUrl}/v1/uploads`, { method: "POST", headers: { ...auth, "content-type": "application/octet-stream" }, body: new Uint8Array(MiB) });
    expect(small.status).toBe(201);
    const tusSmall = await fetch(`${server!.baseUrl}/v1/uploads`, { method: "POST", headers: { ...auth, "tus-resumable": "1.0.0", "upload-length": String(MiB) } });
    expect(tusSmall.status).toBe(201);

    // Something else fills the disk into the reserve: new work is refused until space comes back.
    const filler = fill(8 * MiB);
    const refused = await server!.api("POST", "/v1/jobs", key, job);
    expect(refused.error).toMatchObject({ code: "insufficient_storage", type: "api_error" });
    const rerender = await server!.api("POST", `/v1/jobs/${done.id}/clips/${clip}/renders`, key, { caption_style: "minimal" });
    expect(rerender.error.code).toBe("insufficient_storage");
    const tusPatch = await fetch(tusSmall.headers.get("location")!, {
      method: "PATCH",
      headers: { ...auth, "tus-resumable": "1.0.0", "upload-offset": "0", "content-type": "application/offset+octet-stream" },
      body: new Uint8Array(MiB),
    });
    expect(tusPatch.status).toBe(507);
    expect((await fetch(`${server!.baseUrl}/v1/uploads`, { method: "POST", headers: { ...auth, "content-type": "application/octet-stream" }, body: new Uint8Array(1024) })).status).toBe(507);
    rmSync(filler, { force: true });
    expect((await server!.api("POST", "/v1/jobs", key, job)).status).toBe("queued");
    expect((await server!.api("POST", `/v1/jobs/${done.id}/clips/${clip}/renders`, key, { caption_style: "minimal" })).render.status).toBeDefined();
  } finally {
    await server!.kill9();
  }
}, 180_000);

let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false, env: { CLIPYARD_UPLOAD_QUOTA_BYTES: String(2 * MiB) } });
});
afterAll(() => app.stop());

test("an organisation's unfinished and kept uploads stop at CLIPYARD_UPLOAD_QUOTA_BYTES; other organisations are unaffected", async () => {
  const key = app.key("quota-a");
  const post = (k: string, body: BodyInit) =>
    fetch(`${app.baseUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${k}`, "content-type": "application/octet-stream" }, body });
  expect((await post(key, new Uint8Array(MiB))).status).toBe(201);
  // An unfinished tus upload holds its declared length.
  const tus = tusClient(app, key);
  const pending = await tus.create(MiB / 2);
  expect(pending.status).toBe(201);
  const over = await tus.create(MiB);
  expect(over.status).toBe(507);
  expect(((await over.json()) as any).error).toMatchObject({ code: "upload_quota_exceeded", type: "invalid_request_error" });
  // Raw with Content-Length is refused up front; chunked once the stream passes the quota.
  const declared = await post(key, new Uint8Array(MiB));
  expect(declared.status).toBe(507);
  const streamed = await post(key, chunked(16 * MiB));
  expect(streamed.status).toBe(507);
  expect(((await streamed.json()) as any).error.code).toBe("upload_quota_exceeded");
  expect(readdirSync(uploadsDir(app.dataDir)).filter((n) => n.endsWith(".partial"))).toEqual([]);
  // The sandbox and live worlds share one quota: they share the disk.
  expect((await post(app.key("quota-a", "live"), new Uint8Array(MiB))).status).toBe(507);
  // Another organisation has its own.
  expect((await post(app.key("quota-b"), new Uint8Array(MiB))).status).toBe(201);
  // Deleting the unfinished upload gives its share back.
  expect((await tus.delete(pending.headers.get("location")!)).status).toBe(204);
  expect((await tus.create(MiB / 2)).status).toBe(201);
});

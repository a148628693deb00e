import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { uploadFilePath } from "../../src/pipeline/acquire.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { checkExports } from "../helpers/exports.ts";
import { speechWav } from "../helpers/speech.ts";
import { rawUpload, terminalJob, tusClient } from "../helpers/uploads.ts";

/** Uploads through the real HTTP server: raw bodies, tus in chunks, and sandbox jobs made from them. */
let app: TestAppliance;
const RECORDING = speechWav();
const bytes = readFileSync(RECORDING);
const sha = (b: Buffer) => createHash("sha256").update(b).digest("hex");

beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.005" } });
});
afterAll(() => app.stop());

test("a raw body upload is stored byte for byte and answers 201 with the Upload", async () => {
  const key = app.key("up-raw");
  const res = await rawUpload(app, key, Bun.file(RECORDING), "?filename=speech.wav");
  expect(res.status).toBe(201);
  expect(res.json).toMatchObject({ object: "upload", status: "complete", size: bytes.length, received_bytes: bytes.length, filename: "speech.wav", livemode: false });
  expect(res.json.id).toMatch(/^upl_[A-Za-z0-9]+$/);
  expect(Date.parse(res.json.expires_at) - Date.parse(res.json.created_at)).toBe(24 * 3600 * 1000);
  expect(res.headers.get("location")).toBe(`${app.baseUrl}/v1/uploads/${res.json.id}`);
  expect(sha(readFileSync(uploadFilePath(app.dataDir, res.json.id)))).toBe(sha(bytes));
  const got = await app.api("GET", `/v1/uploads/${res.json.id}`, { key });
  expect(got.status).toBe(200);
  expect(got.json).toEqual(res.json);
});

test("tus: created, sent in chunks, interrupted, resumed from the server's offset, completed", async () => {
  const key = app.key("up-tus");
  const tus = tusClient(app, key);
  const created = await tus.create(bytes.length, { filename: "speech.wav" });
  expect(created.status).toBe(201);
  expect(created.headers.get("tus-resumable")).toBe("1.0.0");
  expect(created.headers.get("access-control-allow-origin")).toBeNull();
  const body = (await created.json()) as any;
  const url = created.headers.get("location")!;
  expect(url).toBe(`${app.baseUrl}/v1/uploads/${body.id}`);
  expect(body).toMatchObject({ status: "receiving", size: bytes.length, filename: "speech.wav" });
  expect(new Date(created.headers.get("upload-expires")!).getTime()).toBe(Math.floor(Date.parse(body.expires_at) / 1000) * 1000);

  const first = await tus.patch(url, 0, bytes.slice(0, 100_000));
  expect(first.status).toBe(204);
  expect(first.headers.get("upload-offset")).toBe("100000");
  // The client loses its place: it asks the server where to carry on.
  const head = await tus.head(url);
  expect(head.status).toBe(200);
  expect(head.headers.get("upload-offset")).toBe("100000");
  expect(head.headers.get("upload-length")).toBe(String(bytes.length));
  expect((await app.api("GET", `/v1/uploads/${body.id}`, { key })).json).toMatchObject({ status: "receiving", received_bytes: 100_000 });
  // A PATCH at the wrong offset is refused by the protocol (409, in the API's envelope) and changes nothing.
  const conflict = await tus.patch(url, 0, bytes.slice(0, 10));
  expect(conflict.status).toBe(409);
  expect(((await conflict.json()) as any).error).toMatchObject({ code: "upload_offset_conflict", type: "invalid_request_error" });
  expect(conflict.headers.get("tus-resumable")).toBe("1.0.0");
  for (let off = 100_000; off < bytes.length; off += 120_000) {
    const res = await tus.patch(url, off, bytes.slice(off, off + 120_000));
    expect(res.status).toBe(204);
  }
  const done = await app.api("GET", `/v1/uploads/${body.id}`, { key });
  expect(done.json).toMatchObject({ status: "complete", size: bytes.length, received_bytes: bytes.length });
  expect(sha(readFileSync(uploadFilePath(app.dataDir, body.id)))).toBe(sha(bytes));
});

test("a sandbox job from an upload completes with the fixtures and every export", async () => {
  const key = app.key("up-job");
  const upload = (await rawUpload(app, key, Bun.file(RECORDING))).json;
  const submitted = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "upload", upload_id: upload.id } } });
  expect(submitted.status).toBe(202);
  expect(submitted.json.source).toEqual({ type: "upload", upload_id: upload.id });
  const job = await terminalJob(app, key, submitted.json.id, 30_000);
  expect(job.status).toBe("complete");
  expect(job.output.clips).toHaveLength(3);
  expect(job.output.trailer).toBeNull();
  await checkExports(job);
}, 60_000);

test("tus discovery (OPTIONS) names the protocol, its extensions and the size limit", async () => {
  const res = await fetch(`${app.baseUrl}/v1/uploads`, { method: "OPTIONS" });
  expect(res.status).toBe(204);
  expect(res.headers.get("tus-version")).toContain("1.0.0");
  expect(res.headers.get("tus-extension")).toContain("creation");
  expect(res.headers.get("tus-extension")).toContain("termination");
  expect(res.headers.get("tus-max-size")).toBe(String(app.ctx.config.maxMediaBytes));
  expect(res.headers.get("access-control-allow-origin")).toBeNull();
});

test("a tus upload can be terminated (DELETE): it is gone", async () => {
  const key = app.key("up-del");
  const tus = tusClient(app, key);
  const created = await tus.create(10);
  const url = created.headers.get("location")!;
  expect((await tus.delete(url)).status).toBe(204);
  expect((await app.api("GET", `/v1/uploads/${url.split("/").pop()}`, { key })).status).toBe(404);
});

test("the OpenAPI document describes uploads and the upload source", async () => {
  const doc = (await app.api("GET", "/v1/openapi.json")).json;
  expect(doc.paths["/v1/uploads"].post).toBeDefined();
  expect(doc.paths["/v1/uploads/{id}"].get).toBeDefined();
  expect(doc.components.schemas.Upload.properties.expires_at).toBeDefined();
  expect(JSON.stringify(doc.components.schemas.JobCreate.properties.source)).toContain("upload_id");
  expect(doc.components.schemas.Job.properties.output.anyOf[0].properties.timeline_url).toBeDefined();
});

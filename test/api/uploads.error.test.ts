import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { uploadsDir } from "../../src/pipeline/acquire.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { rawUpload, tusClient } from "../helpers/uploads.ts";

/** Bad uploads and bad upload sources get the error envelope with the right code and param. */
const MAX = 64 * 1024;
let app: TestAppliance;
let key: string;
beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_MAX_MEDIA_BYTES: String(MAX) } });
  key = app.key("up-err");
});
afterAll(() => app.stop());

const submit = (source: unknown) => app.api("POST", "/v1/jobs", { key, body: { source } });

test("job sources: unknown, malformed or missing upload ids are invalid_upload on source.upload_id", async () => {
  for (const source of [{ type: "upload", upload_id: "upl_doesnotexist0000000" }, { type: "upload", upload_id: "../../etc/passwd" }, { type: "upload", upload_id: 42 }, { type: "upload" }]) {
    const res = await submit(source);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: "invalid_upload", param: "source.upload_id", type: "invalid_request_error" });
  }
  // A URL does not belong in an upload source, nor an upload id in a URL source.
  const mixed = await submit({ type: "upload", upload_id: "upl_x", url: "https://a.example/x.mp4" });
  expect(mixed.json.error.param).toBe("source.url");
  const urlWithId = await submit({ type: "video_url", url: "https://a.example/x.mp4", upload_id: "upl_x" });
  expect(urlWithId.json.error).toMatchObject({ param: "source.upload_id", message: "Unknown field source.upload_id." });
  // The spec's errors for URL sources are unchanged.
  expect((await submit({ type: "vimeo", url: "https://a.example/x" })).json.error).toMatchObject({ code: "invalid_source_type", param: "source.type" });
  expect((await submit({ type: "video_url" })).json.error).toMatchObject({ code: "invalid_source_url", param: "source.url" });
});

test("a tus upload not yet complete cannot be submitted", async () => {
  const tus = tusClient(app, key);
  const created = await tus.create(1000);
  const url = created.headers.get("location")!;
  expect((await tus.patch(url, 0, new Uint8Array(10))).status).toBe(204);
  const res = await submit({ type: "upload", upload_id: url.split("/").pop() });
  expect(res.json.error).toMatchObject({ code: "invalid_upload", param: "source.upload_id" });
  expect(res.json.error.message).toContain("not been fully received");
});

test("over CLIPYARD_MAX_MEDIA_BYTES: refused before or while reading, and nothing stays on disk", async () => {
  const before = existsSync(uploadsDir(app.dataDir)) ? readdirSync(uploadsDir(app.dataDir)).length : 0;
  const declared = await rawUpload(app, key, new Uint8Array(MAX + 1));
  expect(declared.status).toBe(413);
  expect(declared.json.error.code).toBe("body_too_large");
  // Chunked, no Content-Length: the stream is cut once it passes the limit.
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(c) {
      if (sent >= MAX * 4) return c.close();
      sent += 16 * 1024;
      c.enqueue(new Uint8Array(16 * 1024));
    },
  });
  const streamed = await rawUpload(app, key, stream);
  expect(streamed.status).toBe(413);
  expect(streamed.json.error.code).toBe("body_too_large");
  expect(readdirSync(uploadsDir(app.dataDir)).length).toBe(before);
  // tus announces the limit and refuses a longer Upload-Length.
  const tus = await tusClient(app, key).create(MAX + 1);
  expect(tus.status).toBe(413);
  expect(((await tus.json()) as any).error.code).toBe("body_too_large");
  // A tus creation without Upload-Length is a protocol error, also in the envelope.
  const noLength = await fetch(`${app.baseUrl}/v1/uploads`, { method: "POST", headers: { authorization: `Bearer ${key}`, "tus-resumable": "1.0.0" } });
  expect(noLength.status).toBe(400);
  expect(((await noLength.json()) as any).error.code).toBe("invalid_body");
});

test("an empty body, an unknown query parameter, no key", async () => {
  const empty = await rawUpload(app, key, new Uint8Array(0));
  expect(empty.status).toBe(400);
  expect(empty.json.error.code).toBe("invalid_body");
  const query = await rawUpload(app, key, new Uint8Array(10), "?name=x.mp3");
  expect(query.status).toBe(400);
  expect(query.json.error).toMatchObject({ code: "invalid_parameter", param: "name" });
  const anon = await fetch(`${app.baseUrl}/v1/uploads`, { method: "POST", body: "abc" });
  expect(anon.status).toBe(401);
  expect(((await anon.json()) as any).error.code).toBe("missing_authorization");
  const put = await fetch(`${app.baseUrl}/v1/uploads`, { method: "PUT", headers: { authorization: `Bearer ${key}` }, body: "abc" });
  expect(put.status).toBe(405);
});

import { afterEach, expect, test } from "bun:test";
import { ManualClock } from "../../src/clock.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

let app: TestAppliance;
afterEach(() => app?.stop());

test("the 61st write in 60 s is 429 too_many_requests with Retry-After; reads and other keys are unaffected", async () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  app = await startAppliance({ clock, scheduler: false });
  const key = app.key("limits");
  for (let i = 0; i < 60; i++) {
    const res = await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY });
    expect(res.status).toBe(202);
    expect(res.headers.get("x-ratelimit-remaining")).toBe(String(59 - i));
    clock.advance(500);
  }
  const refused = await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY });
  expect(refused.status).toBe(429);
  expect(refused.json.error).toMatchObject({ code: "too_many_requests", type: "rate_limit_error" });
  expect(refused.headers.get("retry-after")).toBe("30"); // now t=30 s; the first write (t=0) leaves the window at t=60 s
  expect(refused.headers.get("x-ratelimit-remaining")).toBe("0");
  expect((await app.api("GET", "/v1/jobs", { key })).status).toBe(200);
  expect((await app.api("POST", "/v1/webhooks", { key, body: { url: "https://hooks.example.com/x", events: ["job.failed"] } })).status).toBe(429);
  expect((await app.api("POST", "/v1/jobs", { key: app.key("limits"), body: VIDEO_BODY })).status).toBe(202);
  clock.advance(30_001);
  expect((await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).status).toBe(202);
});

test("a test event with no job in the organisation yet is no_job_for_test_event", async () => {
  app = await startAppliance({ scheduler: false });
  const key = app.key("no-jobs");
  const hook = (await app.api("POST", "/v1/webhooks", { key, body: { url: "https://hooks.example.com/x", events: ["job.completed"] } })).json;
  const res = await app.api("POST", `/v1/webhooks/${hook.id}/test`, { key });
  expect(res.status).toBe(409);
  expect(res.json.error.code).toBe("no_job_for_test_event");
});

/** Sends raw bytes over TCP (fetch would refuse or rewrite oversized heads) and parses the answer. */
async function rawHttp(port: number, head: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { connect } = await import("node:net");
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(head));
    let out = "";
    socket.on("data", (d) => (out += d));
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
  });
  const [top, body = ""] = text.split("\r\n\r\n", 2) as [string, string?];
  const [statusLine, ...lines] = top.split("\r\n");
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine!.split(" ")[1]), headers, body };
}

test("a request line or header over 16 KiB gets the 431 error envelope with X-Request-Id", async () => {
  app = await startAppliance({ scheduler: false });
  const port = app.http.server!.port!;
  const key = app.key("head-limit");
  const get = (target: string, extra = "") => rawHttp(port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n${extra}Connection: close\r\n\r\n`);
  const cases = [
    { res: await get("/v1/jobs", `X-Big: ${"a".repeat(20_000)}\r\n`), message: /largest header: x-big, 20009 bytes/ },
    { res: await get(`/v1/jobs?pad=${"a".repeat(20_000)}`), message: /^The request line is \d+ bytes/ },
    { res: await get(`/nowhere/${"a".repeat(20_000)}`), message: /^The request line is/ },
  ];
  for (const { res, message } of cases) {
    expect(res.status).toBe(431);
    const body = JSON.parse(res.body);
    expect(res.headers["x-request-id"]).toMatch(/^req_[A-Za-z0-9]{22}$/);
    expect(body).toEqual({
      error: { type: "invalid_request_error", code: "request_header_too_large", message: expect.stringMatching(message), param: null, request_id: res.headers["x-request-id"] },
    });
  }
  // Just under the limit is an ordinary request.
  expect((await get("/v1/jobs", `X-Pad: ${"a".repeat(15_000)}\r\n`)).status).toBe(200);
});

test("a Content-Length past any limit (1e14) gets the 413 envelope with X-Request-Id on every route, not Bun's bare 413", async () => {
  app = await startAppliance({ scheduler: false, env: { CLIPYARD_MAX_MEDIA_BYTES: String(64 * 1024) } });
  const port = app.http.server!.port!;
  const key = app.key("body-limit");
  const targets = [
    ["POST", "/v1/jobs"],
    ["POST", "/v1/uploads"],
    ["PATCH", "/v1/uploads/upl_0000000000000000000000"],
    ["POST", "/v1/webhooks"],
    ["GET", "/v1/jobs"],
    ["POST", "/dashboard/login"],
    ["POST", "/billing/stripe/webhook"],
    ["POST", "/nowhere"],
  ];
  for (const [method, target] of targets) {
    for (const length of ["100000000000000", String(1024 * 1024 + 64 * 1024 + 1)]) {
      const res = await rawHttp(port, `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nTus-Resumable: 1.0.0\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nConnection: close\r\n\r\n{}`);
      const label = `${method} ${target} with Content-Length ${length}`;
      expect({ label, status: res.status }).toEqual({ label, status: 413 });
      expect(res.headers["x-request-id"]).toMatch(/^req_[A-Za-z0-9]{22}$/);
      expect(JSON.parse(res.body)).toEqual({
        error: { type: "invalid_request_error", code: "body_too_large", message: expect.stringContaining(length), param: null, request_id: res.headers["x-request-id"] },
      });
    }
  }
  // The server is still up and answers the next request.
  expect((await app.api("GET", "/healthz")).status).toBe(200);
});

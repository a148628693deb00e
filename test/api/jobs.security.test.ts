import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { revokeKey } from "../../src/accounts/keys.ts";
import { systemClock } from "../../src/clock.ts";
import { testDbEnv } from "../helpers/db.ts";
import { join } from "node:path";

let app: TestAppliance;
let keyA: string;
let keyB: string;
beforeAll(async () => {
  app = await startAppliance();
  keyA = app.key("sec-a");
  keyB = app.key("sec-b");
});
afterAll(() => app.stop());

const code = (r: { json: any }) => r.json?.error?.code;

test("authentication failures in spec order", async () => {
  expect(code(await app.api("GET", "/v1/jobs"))).toBe("missing_authorization");
  expect(code(await app.api("GET", "/v1/jobs", { headers: { authorization: "Basic abc" } }))).toBe("invalid_api_key_format");
  expect(code(await app.api("GET", "/v1/jobs", { key: "sk_test_abc" }))).toBe("invalid_api_key_format");
  expect(code(await app.api("GET", "/v1/jobs", { key: "svc_test_" }))).toBe("invalid_api_key_format");
  expect(code(await app.api("GET", "/v1/jobs", { key: keyA + "x" }))).toBe("invalid_api_key");
  const swapped = "svc_live_" + keyA.slice("svc_test_".length);
  const mismatch = await app.api("GET", "/v1/jobs", { key: swapped });
  expect(code(mismatch)).toBe("api_key_environment_mismatch");
  expect(mismatch.json.error.type).toBe("authentication_error");
  expect(mismatch.status).toBe(401);
});

test("revoked keys stop working at once", async () => {
  const key = app.key("sec-a");
  expect((await app.api("GET", "/v1/jobs", { key })).status).toBe(200);
  expect(revokeKey(app.ctx.db, key, systemClock)).toBe(true);
  expect(code(await app.api("GET", "/v1/jobs", { key }))).toBe("api_key_revoked");
  expect(code(await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY }))).toBe("api_key_revoked");
});

test("a key revoked by another process (clipyard keys revoke) stops working on the server's next request, GET /v1/jobs/{id} included", async () => {
  const key = app.key("sec-a");
  const id = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json.id;
  // The server now remembers this key; only its revocation is read again per request.
  for (let i = 0; i < 3; i++) expect((await app.api("GET", `/v1/jobs/${id}`, { key })).status).toBe(200);
  const cli = Bun.spawnSync(["bun", "run", join(import.meta.dir, "../../src/main.ts"), "keys", "revoke", key], {
    env: { ...process.env, CLIPYARD_DATA_DIR: app.dataDir, ...testDbEnv(app.dataDir) },
    stderr: "pipe",
  });
  expect(cli.stderr.toString()).toContain("revoked");
  expect(cli.exitCode).toBe(0);
  const refused = await app.api("GET", `/v1/jobs/${id}`, { key });
  expect(refused.status).toBe(401);
  expect(code(refused)).toBe("api_key_revoked");
  expect(refused.headers.get("x-request-id")).toMatch(/^req_[A-Za-z0-9]{22}$/);
  expect(code(await app.api("GET", `/v1/jobs/${id}`, { key }))).toBe("api_key_revoked");
  // The organisation's other keys are untouched.
  const other = await app.api("GET", `/v1/jobs/${id}`, { key: keyA });
  expect(other.status).toBe(200);
  expect(other.headers.get("x-ratelimit-limit")).toBe("600");
});

test("keys are stored hashed: the database never holds the key text", () => {
  const dump = JSON.stringify(app.ctx.db.$client.query("SELECT * FROM api_keys").all());
  expect(dump).not.toContain(keyA.slice("svc_test_".length));
  expect(keyA.length - "svc_test_".length).toBeGreaterThanOrEqual(32); // 190 bits of base62
});

test("organisations cannot see each other's jobs, share tokens are unguessable", async () => {
  const a = (await app.api("POST", "/v1/jobs", { key: keyA, body: VIDEO_BODY })).json.id;
  expect(code(await app.api("GET", `/v1/jobs/${a}`, { key: keyB }))).toBe("not_found");
  const list = await app.api("GET", "/v1/jobs?limit=100", { key: keyB });
  expect(list.text).not.toContain(a);
  expect((await fetch(`${app.baseUrl}/share/${"A".repeat(32)}`)).status).toBe(404);
  expect((await fetch(`${app.baseUrl}/share/../../etc/passwd`)).status).toBe(404);
});

test("every response has a distinct req_ id, also unauthenticated and unknown routes", async () => {
  const ids = new Set<string>();
  for (const r of [await app.api("GET", "/v1/jobs", { key: keyA }), await app.api("GET", "/nope"), await app.api("GET", "/healthz")]) {
    const id = r.headers.get("x-request-id")!;
    expect(id).toMatch(/^req_[A-Za-z0-9]{22}$/);
    ids.add(id);
  }
  expect(ids.size).toBe(3);
});

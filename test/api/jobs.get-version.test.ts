import { afterAll, beforeAll, expect, test } from "bun:test";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { openTestDb } from "../helpers/db.ts";

// GET /v1/jobs/{id} reads the job's row version and answers with the body it built before while the
// version is unchanged. A change written through another connection (another process, a worker
// node), which the server's memory knows nothing of, must show on the very next read.
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
});
afterAll(() => app.stop());

test("a job changed through another database connection shows on the server's next GET", async () => {
  const key = app.key("version-a");
  const id = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json.id;
  const first = await app.api("GET", `/v1/jobs/${id}`, { key });
  expect(first.json.status).toBe("queued");
  // Read again: the same body (now answered from what the server remembers).
  expect((await app.api("GET", `/v1/jobs/${id}`, { key })).text).toBe(first.text);

  const other = openTestDb(app.dataDir);
  try {
    other.$client.query("UPDATE jobs SET status = 'processing', progress = ? WHERE id = ?").run(JSON.stringify({ stage: "transcribe", percent: 40 }), id);
    const processing = await app.api("GET", `/v1/jobs/${id}`, { key });
    expect(processing.json.status).toBe("processing");
    expect(processing.json.progress).toEqual({ stage: "transcribe", percent: 40 });
    // A change of a column alone, with the status as it was.
    other.$client.query("UPDATE jobs SET progress = ? WHERE id = ?").run(JSON.stringify({ stage: "transcribe", percent: 41 }), id);
    expect((await app.api("GET", `/v1/jobs/${id}`, { key })).json.progress.percent).toBe(41);
    other.$client.query("UPDATE jobs SET status = 'failed', progress = NULL, completed_at = 5000, error_code = 'media_fetch_failed', error_message = 'refused' WHERE id = ?").run(id);
    const failed = await app.api("GET", `/v1/jobs/${id}`, { key });
    expect(failed.json.error).toEqual({ code: "media_fetch_failed", message: "refused" });
    expect(failed.json.status).toBe("failed");
  } finally {
    other.$client.close();
  }
});

test("the remembered body is never answered to another organisation or for an unknown job", async () => {
  const a = app.key("version-b");
  const b = app.key("version-c");
  const id = (await app.api("POST", "/v1/jobs", { key: a, body: VIDEO_BODY })).json.id;
  expect((await app.api("GET", `/v1/jobs/${id}`, { key: a })).status).toBe(200);
  const foreign = await app.api("GET", `/v1/jobs/${id}`, { key: b });
  expect(foreign.status).toBe(404);
  expect(foreign.json.error.code).toBe("not_found");
  expect(foreign.json.error.param).toBe("id");
  expect((await app.api("GET", `/v1/jobs/job_doesnotexist`, { key: a })).status).toBe(404);
});

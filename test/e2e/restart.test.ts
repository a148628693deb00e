import { afterEach, expect, test } from "bun:test";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { startReceiver } from "../helpers/receiver.ts";
import { eventually } from "../helpers/wait.ts";

let server: ServerProcess | undefined;
afterEach(async () => {
  if (server?.proc && server.proc.exitCode === null) await server.kill9();
});

function poll(s: ServerProcess, key: string, id: string, until: (j: any) => boolean) {
  return eventually(() => s.api("GET", `/v1/jobs/${id}`, key), until, { what: `job ${id}` });
}

test("kill -9 mid-job: after a restart the job and its webhook delivery still complete", async () => {
  const receiver = await startReceiver();
  server = new ServerProcess(freePort(), { CLIPYARD_TIME_SCALE: "0.15", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_ALLOW_PRIVATE_NETWORK: "1" });
  await server.start();
  const key = await server.cli("keys", "create", "--org", "restart", "--env", "test");
  const hook = await server.api("POST", "/v1/webhooks", key, { url: receiver.url(), events: ["job.failed"] });
  const job = await server.api("POST", "/v1/jobs", key, { source: { type: "video_url", url: "https://m.example.com/fail.mp4" } });
  await poll(server, key, job.id, (j) => j.status === "processing");
  expect(await server.kill9()).not.toBe(0);

  // A new process on the same data directory picks the job up where the database left it.
  server = new ServerProcess(freePort(), server.env, server.dataDir);
  await server.start();
  const done = await poll(server, key, job.id, (j) => j.status === "failed");
  expect(done.error.code).toBe("transcription_failed");
  const delivery = await receiver.waitFor(1);
  expect(delivery.json.data.object.id).toBe(job.id);
  // The receiver hears the request before the delivery worker records its answer: wait for the record.
  const s = server;
  const deliveries = await eventually(() => s.api("GET", `/v1/webhooks/${hook.id}/deliveries`, key), (d: any) => d.data[0]?.status !== "pending", { what: "the delivery's outcome" });
  expect(deliveries.data[0].status).toBe("succeeded");
  receiver.stop();
}, 240_000);

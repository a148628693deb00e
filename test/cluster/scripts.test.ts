import { expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort, ServerProcess } from "../helpers/process.ts";
import { eventually } from "../helpers/wait.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** The settings `eval "$(up.sh DIR)"` would export, parsed from its output. */
function exportsOf(stdout: string): Record<string, string> {
  return Object.fromEntries([...stdout.matchAll(/^export (\w+)='([^']*)'$/gm)].map((m) => [m[1]!, m[2]!]));
}

test("scripts/cluster/up.sh starts PostgreSQL and S3 and prints every setting a node needs; down.sh stops them", async () => {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-up-"));
  // Free ports for PostgreSQL and for SeaweedFS's ten (S3 first).
  const ports = { CLUSTER_PG_PORT: String(20000 + Math.floor(Math.random() * 9000)), CLUSTER_S3_PORT: String(30000 + Math.floor(Math.random() * 900) * 10) };
  const up = spawnSync("bash", [join(ROOT, "scripts/cluster/up.sh"), dir], { env: { ...process.env, ...ports }, encoding: "utf8" });
  let node: ServerProcess | undefined;
  try {
    expect(up.status).toBe(0);
    const settings = exportsOf(up.stdout);
    expect(Object.keys(settings).sort()).toEqual(["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "CLIPYARD_DATABASE_URL", "CLIPYARD_SECRET_KEY", "CLIPYARD_STORAGE_URL"]);
    node = new ServerProcess(freePort(), { ...settings, CLIPYARD_TIME_SCALE: "0.01" });
    await node.start();
    const key = await node.cli("keys", "create", "--org", "up", "--env", "test");
    const job = await node.api("POST", "/v1/jobs", key, { source: { type: "video_url", url: "https://media.example.com/a.mp4" } });
    const s = node;
    const done = await eventually(() => s.api("GET", `/v1/jobs/${job.id}`, key), (j: any) => j.status === "complete", { what: "the job on the cluster back end" });
    expect(done.output.clips.length).toBe(3);
  } finally {
    if (node?.proc) await node.kill9();
    const down = spawnSync("bash", [join(ROOT, "scripts/cluster/down.sh"), dir], { encoding: "utf8" });
    expect(down.status).toBe(0);
    // Nothing listens any more.
    const pg = spawnSync("bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${ports.CLUSTER_PG_PORT}`]);
    expect(pg.status).not.toBe(0);
    rmSync(dir, { recursive: true, force: true });
  }
}, 180_000);

#!/usr/bin/env bun
/**
 * The single executable: size, cold start to a healthy /healthz, idle memory (RSS after start).
 * Usage: bun scripts/bench/binary.ts [path=dist/clipyard] [runs=7]   (build first: scripts/build-binary.sh)
 */
import { spawn } from "bun";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { median, table } from "./load.ts";

const bin = resolve(process.argv[2] ?? "dist/clipyard");
const runs = Number(process.argv[3] ?? 7);
const starts: number[] = [];
const rss: number[] = [];
for (let i = 0; i < runs; i++) {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-bin-"));
  const port = 19000 + Math.floor(Math.random() * 1000);
  const t0 = performance.now();
  const proc = spawn([bin, "serve"], { cwd: dir, env: { ...process.env, CLIPYARD_PORT: String(port), CLIPYARD_DATA_DIR: join(dir, "data"), CLIPYARD_LOG_LEVEL: "warn" }, stdout: "ignore", stderr: "ignore" });
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {}
    if (performance.now() - t0 > 20_000) throw new Error("binary did not become healthy");
    await Bun.sleep(5);
  }
  starts.push(performance.now() - t0);
  await Bun.sleep(1000); // settle, then measure idle memory
  rss.push(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, "utf8"))![1]) / 1024);
  proc.kill();
  await proc.exited;
  rmSync(dir, { recursive: true, force: true });
}
console.log(`${bin}: ${runs} cold starts (fresh data directory each), ${cpus().length} cores (${cpus()[0]?.model})`);
console.log(
  table([
    { measure: "binary size (MB)", value: statSync(bin).size / 1e6 },
    { measure: "cold start to healthy /healthz, median (ms)", value: median(starts) },
    { measure: "cold start, worst (ms)", value: Math.max(...starts) },
    { measure: "idle RSS, median (MB)", value: median(rss) },
  ]),
);

import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runWorker, workerEnv } from "../../../../src/inference/speech-runtime/worker.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A stand-in interpreter that prints, as the worker's one JSON line, the OpenMP settings it was started with. */
function envPrintingPython(): string {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-worker-env-"));
  dirs.push(dir);
  const path = join(dir, "python");
  writeFileSync(path, `#!/bin/sh\nprintf '{"wait":"%s","threads":"%s","offline":"%s"}\\n' "$OMP_WAIT_POLICY" "$OMP_NUM_THREADS" "$HF_HUB_OFFLINE"\n`);
  chmodSync(path, 0o755);
  return path;
}

describe("the speech worker's environment", () => {
  test("idle OpenMP threads sleep, other pools take one thread, models are read offline", () => {
    const env = workerEnv({ PATH: "/usr/bin" });
    expect(env.OMP_WAIT_POLICY).toBe("PASSIVE");
    expect(env.OMP_NUM_THREADS).toBe("1");
    expect(env.HF_HUB_OFFLINE).toBe("1");
    expect(env.PATH).toBe("/usr/bin");
  });

  test("the operator's own OpenMP settings are kept; offline is not negotiable", () => {
    const env = workerEnv({ OMP_WAIT_POLICY: "ACTIVE", OMP_NUM_THREADS: "4", HF_HUB_OFFLINE: "0" });
    expect(env.OMP_WAIT_POLICY).toBe("ACTIVE");
    expect(env.OMP_NUM_THREADS).toBe("4");
    expect(env.HF_HUB_OFFLINE).toBe("1");
  });

  test("a started worker process receives it", async () => {
    const lines: Record<string, unknown>[] = [];
    const saved = process.env.OMP_WAIT_POLICY;
    delete process.env.OMP_WAIT_POLICY;
    try {
      await runWorker(["--version"], (msg) => lines.push(msg), undefined, envPrintingPython());
    } finally {
      if (saved !== undefined) process.env.OMP_WAIT_POLICY = saved;
    }
    expect(lines).toEqual([{ wait: "PASSIVE", threads: process.env.OMP_NUM_THREADS ?? "1", offline: "1" }]);
  });
});

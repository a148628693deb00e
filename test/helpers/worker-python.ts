import { resolve } from "node:path";
import { speechPython } from "../../src/inference/speech-runtime/runtime.ts";

const WORKER_DIR = resolve(import.meta.dir, "../../src/inference/speech-runtime/python");

/**
 * Runs `code` in the speech runtime's Python with the speech worker's `module` (one of its task files,
 * e.g. "fbank") importable as `w` and its other modules on the path, and returns what it prints as
 * JSON: the worker's own numpy functions are the reference the in-process ports are held to.
 */
export function workerPython<T>(module: string, code: string): T {
  const r = Bun.spawnSync([speechPython(), "-c", `import sys, json\nsys.path.insert(0, ${JSON.stringify(WORKER_DIR)})\nimport ${module} as w\nimport numpy as np\n${code}`], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`worker python failed: ${r.stderr.toString().slice(-2000)}`);
  return JSON.parse(r.stdout.toString()) as T;
}

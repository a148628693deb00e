import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { REQUIREMENTS, REQUIREMENTS_SHA256 } from "../../src/inference/speech-runtime/install.ts";

/** `clipyard runtime …` as the real CLI process. */
const ROOT = resolve(import.meta.dir, "../..");
const MAIN = join(ROOT, "src/main.ts");
const made: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-runtime-cli-"));
  made.push(dir);
  return dir;
};
// A real runtime is about half a gigabyte; do not leave one behind per run.
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function clipyard(args: string[], env: Record<string, string | undefined> = {}) {
  const base = { ...process.env };
  delete base.CLIPYARD_SPEECH_DIR;
  delete base.CLIPYARD_SPEECH_PYTHON;
  const t0 = performance.now();
  const p = Bun.spawnSync(["bun", MAIN, "runtime", ...args], { cwd: ROOT, env: { ...base, ...env } as Record<string, string> });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString(), seconds: (performance.now() - t0) / 1000 };
}

const pinned = (name: string) => new RegExp(`^${name}==(.+)$`, "m").exec(REQUIREMENTS)![1];

describe("clipyard runtime status", () => {
  test("from a checkout the runtime is expected in .vendor/speech-venv", () => {
    const r = clipyard(["status", "--json"]);
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({ dir: join(ROOT, ".vendor", "speech-venv"), dirSource: "checkout", pythonFromOverride: false });
    expect(r.code).toBe(s.state === "ready" ? 0 : 1);
  });

  test("a missing runtime: exit 1, and the output says where and what to run", () => {
    const dir = join(tmp(), "speech");
    const r = clipyard(["status"], { CLIPYARD_SPEECH_DIR: dir });
    expect(r.code).toBe(1);
    expect(r.out).toStartWith("speech runtime: missing\n");
    expect(r.out).toContain(`folder        ${dir} (CLIPYARD_SPEECH_DIR)`);
    expect(r.out).toContain("fix           clipyard runtime install\n");
  });
});

describe("clipyard runtime install", () => {
  test("--python /nonexistent: a clear error, exit 1, nothing created", () => {
    const dir = join(tmp(), "speech-venv");
    const r = clipyard(["install", "--python", "/nonexistent", "--dir", dir]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("clipyard runtime install: python not found: /nonexistent; pass --python the path of a Python 3 interpreter\n");
    expect(existsSync(dir)).toBe(false);
  });

  test("unknown options print the usage, exit 2", () => {
    expect(clipyard(["install", "--pyhton", "/usr/bin/python3"]).code).toBe(2);
    expect(clipyard(["install", "--dir"]).code).toBe(2);
    expect(clipyard(["frobnicate"]).code).toBe(2);
  });

  test("a pip failure shows pip's last lines and leaves no stamp", () => {
    const dir = join(tmp(), "speech-venv");
    // No index and an empty wheel folder: pip cannot find the first pin.
    const r = clipyard(["install", "--dir", dir], { PIP_CONFIG_FILE: "/dev/null", PIP_NO_INDEX: "1", PIP_FIND_LINKS: tmp() });
    expect(r.code).toBe(1);
    expect(r.err).toContain("clipyard runtime install: pip install failed (exit 1, Python 3.");
    expect(r.err).toContain("No matching distribution found for");
    expect(existsSync(join(dir, ".requirements.sha256"))).toBe(false);
  }, 120_000);

  test("a real install from PyPI: imports verified, stamped, then a no-op; status follows the stamp", () => {
    const dir = join(tmp(), "speech-venv");
    const first = clipyard(["install", "--dir", dir]);
    console.log(`real install: ${first.seconds.toFixed(1)} s`);
    expect(first.err).toContain("[runtime] creating virtual environment in");
    expect(first.err).toContain("[runtime] verifying: import faster_whisper, ctranslate2, onnxruntime, numpy");
    expect(first.code).toBe(0);
    expect(readFileSync(join(dir, ".requirements.sha256"), "utf8")).toBe(`${REQUIREMENTS_SHA256}\n`);

    const stampTime = statSync(join(dir, ".requirements.sha256")).mtimeMs;
    const again = clipyard(["install", "--dir", dir]);
    console.log(`second install: ${again.seconds.toFixed(1)} s`);
    expect(again).toMatchObject({ code: 0, err: `[runtime] speech runtime up to date (${dir})\n` });
    expect(statSync(join(dir, ".requirements.sha256")).mtimeMs).toBe(stampTime);

    const status = clipyard(["status", "--json"], { CLIPYARD_SPEECH_DIR: dir });
    expect(status.code).toBe(0);
    const s = JSON.parse(status.out);
    expect(s).toMatchObject({ state: "ready", dir, dirSource: "CLIPYARD_SPEECH_DIR", python: join(dir, "bin", "python"), requirements: { current: true } });
    expect(s.pythonVersion).toMatch(/^3\.\d+\.\d+$/);
    expect(s.packages).toEqual({
      "faster-whisper": pinned("faster-whisper"),
      ctranslate2: pinned("ctranslate2"),
      onnxruntime: pinned("onnxruntime"),
      numpy: pinned("numpy"),
    });

    // Requirements that changed since the install make it outdated (still exit 1), until reinstalled.
    writeFileSync(join(dir, ".requirements.sha256"), `${"0".repeat(64)}\n`);
    const outdated = clipyard(["status", "--dir", dir]);
    expect(outdated.code).toBe(1);
    expect(outdated.out).toStartWith("speech runtime: outdated\n");
    expect(outdated.out).toContain(`fix           clipyard runtime install --dir ${dir}\n`);
  }, 600_000);
});

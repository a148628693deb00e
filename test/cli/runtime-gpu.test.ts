import { afterAll, beforeAll, expect, test } from "bun:test";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { GPU_REQUIREMENTS_SHA256, installedGpuRequirementsSha256, isUpToDate } from "../../src/inference/speech-runtime/install.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { testShared } from "../helpers/shared.ts";

/**
 * `clipyard runtime install --gpu` for real (CUDA 12 cuBLAS and cuDNN 9 from PyPI, about 2 GB installed),
 * then what the worker makes of it. On a machine without a GPU the libraries install and load, doctor
 * says why CUDA recognition will not run, and recognition stays int8 on the CPU; the float16 CUDA test
 * runs only where an NVIDIA driver is present.
 */
const ROOT = resolve(import.meta.dir, "../..");
const MAIN = join(ROOT, "src/main.ts");
let home: string;
let dir: string;

function clipyard(args: string[], env: Record<string, string> = {}) {
  const base: Record<string, string | undefined> = { ...process.env, CLIPYARD_SPEECH_DIR: dir, CLIPYARD_LOG_LEVEL: "warn" };
  delete base.CLIPYARD_SPEECH_PYTHON;
  const p = Bun.spawnSync(["bun", MAIN, ...args], { cwd: ROOT, env: { ...base, ...env } as Record<string, string> });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

function hasNvidiaDriver(): boolean {
  return ["/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "/usr/lib/wsl/lib/libcuda.so.1"].some(existsSync);
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "clipyard-runtime-gpu-"));
  dir = join(home, "speech-venv");
  // The base runtime is the checkout's, copied when it is current (its own real install from PyPI is
  // test/cli/runtime.test.ts): this file is about what --gpu adds on top, and a second base install
  // cost the suite about 15 s of a worker. Without a current one, --gpu installs both.
  const checkout = loadConfig().speechDir;
  if (isUpToDate(checkout) && installedGpuRequirementsSha256(checkout) === null) cpSync(checkout, dir, { recursive: true, verbatimSymlinks: true });
  const r = clipyard(["runtime", "install", "--gpu"]);
  if (r.code !== 0) throw new Error(`runtime install --gpu failed:\n${r.err}`);
  expect(r.err).toContain("[runtime] verifying: the speech worker loads libcublas.so.12 and libcudnn.so.9");
}, 600_000);
afterAll(() => rmSync(home, { recursive: true, force: true }));

test("install --gpu stamps the CUDA libraries, a second run is a no-op, status reports them", () => {
  expect(readFileSync(join(dir, ".gpu-requirements.sha256"), "utf8")).toBe(`${GPU_REQUIREMENTS_SHA256}\n`);
  expect(clipyard(["runtime", "install", "--gpu"]).err).toBe(`[runtime] speech runtime up to date (${dir}, with the CUDA libraries)\n`);
  const status = JSON.parse(clipyard(["runtime", "status", "--json"]).out);
  expect(status.gpuRequirements).toEqual({ expectedSha256: GPU_REQUIREMENTS_SHA256, installedSha256: GPU_REQUIREMENTS_SHA256, current: true });
}, 120_000);

test("doctor --json says whether CUDA recognition will run, and why not", () => {
  const checks = JSON.parse(clipyard(["doctor", "--json"]).out).checks as Array<{ name: string; status: string; data: any }>;
  const cuda = checks.find((c) => c.name === "cuda recognition")!;
  expect(cuda.data).toMatchObject({ cublas: true, cudnn: true });
  expect(cuda.data.library_dirs).toEqual(expect.arrayContaining([expect.stringContaining("nvidia/cublas/lib"), expect.stringContaining("nvidia/cudnn/lib")]));
  if (hasNvidiaDriver()) {
    expect(cuda.data.driver).toBe(true);
  } else {
    expect(cuda).toMatchObject({ status: "ok", data: { available: false, driver: false, devices: 0, reason: "no NVIDIA driver: libcuda.so.1 cannot be loaded" } });
  }
}, 120_000);

testShared.skipIf(hasNvidiaDriver())("with the CUDA libraries but no usable GPU, recognition runs int8 on the CPU and asking for CUDA is a clear error", () => {  const auto = clipyard(["transcribe", join(SHARED_MEDIA, "jfk.wav"), "--json", "--no-diarize"]);
  expect(auto.code).toBe(0);
  const t = JSON.parse(auto.out);
  expect(t.engine).toBe("faster-whisper/CTranslate2 whisper-tiny.en int8 + silero-vad v5 in-process");
  expect(t.words.map((w: any) => w.word).join(" ")).toContain("ask not what your country can do for you");
  expect(auto.err).not.toContain("falls back"); // no GPU at all is not worth a warning

  const forced = clipyard(["transcribe", join(SHARED_MEDIA, "jfk.wav"), "--json", "--no-diarize"], { CLIPYARD_ASR_DEVICE: "cuda" });
  expect(forced.code).not.toBe(0);
  expect(forced.err).toContain("--device cuda: no NVIDIA driver: libcuda.so.1 cannot be loaded");
}, 120_000);

testShared.skipIf(!hasNvidiaDriver())("on an NVIDIA GPU: Whisper runs float16 on CUDA and hears the same words as the CPU", () => {
  const gpu = JSON.parse(clipyard(["transcribe", join(SHARED_MEDIA, "jfk.wav"), "--json", "--no-diarize"], { CLIPYARD_ASR_DEVICE: "cuda" }).out);
  const cpu = JSON.parse(clipyard(["transcribe", join(SHARED_MEDIA, "jfk.wav"), "--json", "--no-diarize"], { CLIPYARD_ASR_DEVICE: "cpu" }).out);
  expect(gpu.engine).toBe("faster-whisper/CTranslate2 whisper-tiny.en float16 on CUDA + silero-vad v5 in-process");
  expect(cpu.engine).toBe("faster-whisper/CTranslate2 whisper-tiny.en int8 + silero-vad v5 in-process");
  const text = (t: any) => t.words.map((w: any) => w.word.toLowerCase().replace(/[^a-z']/g, "")).join(" ");
  expect(text(gpu)).toBe(text(cpu));
}, 300_000);

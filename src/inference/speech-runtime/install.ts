import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
// Imported as text so `bun build --compile` carries the pins: a binary user has no checkout to read them from.
import pinnedRequirements from "../../../scripts/setup/asr-requirements.txt" with { type: "text" };
import pinnedGpuRequirements from "../../../scripts/setup/asr-gpu-requirements.txt" with { type: "text" };
import { capture } from "../../run-command.ts";
import { sha256Hex } from "../../ids.ts";
import { venvPython } from "./runtime.ts";
import { cudaStatus } from "./worker.ts";

export const REQUIREMENTS: string = pinnedRequirements;
/** Same digest `sha256sum scripts/setup/asr-requirements.txt` gives, so runtimes stamped by older setups stay current. */
export const REQUIREMENTS_SHA256 = sha256Hex(REQUIREMENTS);
const STAMP_FILE = ".requirements.sha256";
const REQUIREMENTS_FILE = ".requirements.txt";
/** The CUDA 12 libraries GPU recognition loads (`runtime install --gpu`), stamped on their own. */
export const GPU_REQUIREMENTS: string = pinnedGpuRequirements;
export const GPU_REQUIREMENTS_SHA256 = sha256Hex(GPU_REQUIREMENTS);
const GPU_STAMP_FILE = ".gpu-requirements.sha256";
const GPU_REQUIREMENTS_FILE = ".gpu-requirements.txt";
/** What the speech worker imports; a runtime that cannot import these cannot run a live job. */
export const RUNTIME_MODULES = ["faster_whisper", "ctranslate2", "onnxruntime", "numpy"];

/** The requirements digest the runtime in `dir` was installed from, or null when it carries no stamp. */
export function installedRequirementsSha256(dir: string, stamp = STAMP_FILE): string | null {
  try {
    return readFileSync(join(dir, stamp), "utf8").trim() || null;
  } catch {
    return null;
  }
}

/** The GPU requirements digest the runtime in `dir` carries, or null when `--gpu` never installed there. */
export function installedGpuRequirementsSha256(dir: string): string | null {
  return installedRequirementsSha256(dir, GPU_STAMP_FILE);
}

export function isUpToDate(dir: string): boolean {
  return existsSync(venvPython(dir)) && installedRequirementsSha256(dir) === REQUIREMENTS_SHA256;
}

export function gpuIsUpToDate(dir: string): boolean {
  return isUpToDate(dir) && installedGpuRequirementsSha256(dir) === GPU_REQUIREMENTS_SHA256;
}

export class SpeechRuntimeInstallError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SpeechRuntimeInstallError";
  }
}

export interface InstallOptions {
  dir: string;
  /** Interpreter the venv is made from: a path, or a command name looked up on PATH. Default python3. */
  python?: string;
  /** Rebuild even when the stamp says the runtime is current (for a runtime broken after it was stamped). */
  force?: boolean;
  /** Also install the CUDA 12 libraries (cuBLAS, cuDNN) GPU recognition needs; harmless on a machine without a GPU. */
  gpu?: boolean;
  onProgress?: (line: string) => void;
}

export interface InstallResult {
  dir: string;
  changed: boolean;
  pythonVersion?: string;
  seconds: number;
}

/** Exit code and both streams together: pip and venv put their errors on either. */
async function run(cmd: string[]): Promise<{ code: number; output: string }> {
  const r = await capture(cmd);
  return { code: r.code, output: `${r.stdout}\n${r.stderr}`.trim() };
}

function lastLines(text: string, n: number): string {
  const lines = text.split("\n").filter((l) => l.trim());
  return lines.length ? lines.slice(-n).map((l) => `  ${l}`).join("\n") : "  (no output)";
}

function basePython(requested: string | undefined): string {
  if (requested === undefined) {
    const found = Bun.which("python3");
    if (!found) throw new SpeechRuntimeInstallError("python3 not found on PATH; install Python 3 with its venv module (Debian/Ubuntu: apt-get install python3 python3-venv), or pass --python PATH");
    return found;
  }
  const found = requested.includes("/") ? (existsSync(requested) ? requested : null) : Bun.which(requested);
  if (!found) throw new SpeechRuntimeInstallError(`python not found: ${requested}; pass --python the path of a Python 3 interpreter`);
  return found;
}

const NO_VENV_MODULE = /No module named '?(venv|ensurepip)'?|ensurepip is not\s+available/;
const noVenvModule = (python: string) =>
  new SpeechRuntimeInstallError(`${python} cannot create virtual environments (its venv/ensurepip module is missing); on Debian/Ubuntu: apt-get install python3-venv`);

/** Checks the interpreter can make a venv and returns its version, before anything on disk is touched. */
async function checkVenvSupport(python: string): Promise<string> {
  const probe = await run([python, "-c", "import sys, venv, ensurepip; print(sys.version.split()[0])"]);
  if (probe.code === 0) return probe.output.split("\n")[0]!.trim();
  if (NO_VENV_MODULE.test(probe.output)) throw noVenvModule(python);
  throw new SpeechRuntimeInstallError(`${python} did not run as Python 3 (exit ${probe.code}):\n${lastLines(probe.output, 5)}`);
}

/** A rebuild starts from an empty folder; only a previous venv is deleted, never a folder of someone else's files. */
function clearForRebuild(dir: string): void {
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory() || (readdirSync(dir).length > 0 && !existsSync(join(dir, "pyvenv.cfg")))) {
    throw new SpeechRuntimeInstallError(`${dir} exists and is not a Python virtual environment; refusing to replace it (choose a new or empty folder with --dir)`);
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * One install per runtime folder at a time: two would delete and rebuild the same venv under each
 * other. The lock is a file beside the folder holding the installer's pid; one left by an install
 * that was killed (its pid gone) is taken over. Returns the release function.
 */
export function lockRuntime(dir: string): () => void {
  const lock = `${dir}.lock`;
  mkdirSync(dirname(lock), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: "wx" });
      return () => rmSync(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      const pid = Number(readFileSync(lock, "utf8").trim());
      if (pidAlive(pid)) {
        throw new SpeechRuntimeInstallError(`another \`clipyard runtime install\` (pid ${pid}) is installing into ${dir}; wait for it to finish`);
      }
      rmSync(lock, { force: true });
    }
  }
  throw new SpeechRuntimeInstallError(`could not take the install lock ${lock}`);
}

/**
 * Creates the speech runtime in opts.dir: a venv with exactly the pinned requirements, verified by
 * importing what the worker needs, then stamped with the requirements digest. A runtime whose stamp
 * matches is left alone, so a second run costs nothing.
 */
export async function installSpeechRuntime(opts: InstallOptions): Promise<InstallResult> {
  const t0 = performance.now();
  const seconds = () => (performance.now() - t0) / 1000;
  const say = opts.onProgress ?? (() => {});
  const { dir } = opts;
  const current = (): InstallResult | undefined => {
    if (opts.force || !isUpToDate(dir) || (opts.gpu && !gpuIsUpToDate(dir))) return undefined;
    say(`speech runtime up to date (${dir}${opts.gpu ? ", with the CUDA libraries" : ""})`);
    return { dir, changed: false, seconds: seconds() };
  };
  const already = current();
  if (already) return already;
  const unlock = lockRuntime(dir);
  try {
    // Checked again under the lock: an install that held it may have finished since.
    const done = current();
    if (done) return done;
    let result: InstallResult = { dir, changed: false, seconds: 0 };
    if (opts.force || !isUpToDate(dir)) result = await install(dir, opts, say, seconds);
    if (opts.gpu) await installGpu(dir, say);
    return { ...result, changed: true, seconds: seconds() };
  } finally {
    unlock();
  }
}

/**
 * Adds the pinned CUDA libraries to a current runtime, checks the worker can load them, then stamps
 * them. No GPU is needed for any of this: the libraries load without one, so a machine can be set
 * up before its GPU (or driver) arrives, and `clipyard doctor` says what is still missing.
 */
async function installGpu(dir: string, say: (line: string) => void): Promise<void> {
  rmSync(join(dir, GPU_STAMP_FILE), { force: true });
  const requirementsFile = join(dir, GPU_REQUIREMENTS_FILE);
  writeFileSync(requirementsFile, GPU_REQUIREMENTS);
  say("installing the CUDA 12 libraries for GPU recognition (cuBLAS, cuDNN 9) with pip; this downloads about 1.3 GB");
  const pip = await run([venvPython(dir), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-input", "-r", requirementsFile]);
  if (pip.code !== 0) throw new SpeechRuntimeInstallError(`pip install of the CUDA libraries failed (exit ${pip.code}); its last lines:\n${lastLines(pip.output, 12)}`);
  say("verifying: the speech worker loads libcublas.so.12 and libcudnn.so.9");
  const cuda = await cudaStatus(venvPython(dir));
  if (!cuda.cublas || !cuda.cudnn) {
    throw new SpeechRuntimeInstallError(`the CUDA libraries installed but the speech worker cannot load them (cuBLAS ${cuda.cublas ? "ok" : "missing"}, cuDNN ${cuda.cudnn ? "ok" : "missing"}; looked in ${cuda.library_dirs.join(", ") || "no nvidia/*/lib folder"})`);
  }
  writeFileSync(join(dir, GPU_STAMP_FILE), `${GPU_REQUIREMENTS_SHA256}\n`);
  say(cuda.usable ? `CUDA recognition ready: ${cuda.devices} GPU(s), float16` : `CUDA libraries installed; GPU recognition will not run yet: ${cuda.reason}`);
}

async function install(dir: string, opts: InstallOptions, say: (line: string) => void, seconds: () => number): Promise<InstallResult> {
  const python = basePython(opts.python);
  const version = await checkVenvSupport(python);
  clearForRebuild(dir);
  say(`creating virtual environment in ${dir} (Python ${version}, ${python})`);
  const venv = await run([python, "-m", "venv", dir]);
  if (venv.code !== 0) {
    if (NO_VENV_MODULE.test(venv.output)) throw noVenvModule(python);
    throw new SpeechRuntimeInstallError(`${python} -m venv ${dir} failed (exit ${venv.code}):\n${lastLines(venv.output, 8)}`);
  }

  const requirementsFile = join(dir, REQUIREMENTS_FILE);
  writeFileSync(requirementsFile, REQUIREMENTS);
  const count = REQUIREMENTS.split("\n").filter((l) => /^\s*[^#\s]/.test(l)).length;
  say(`installing ${count} pinned packages (faster-whisper, CTranslate2, ONNX Runtime) with pip; this downloads a few hundred MB`);
  const pip = await run([venvPython(dir), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-input", "-r", requirementsFile]);
  if (pip.code !== 0) {
    throw new SpeechRuntimeInstallError(`pip install failed (exit ${pip.code}, Python ${version}); its last lines:\n${lastLines(pip.output, 12)}`);
  }

  say(`verifying: import ${RUNTIME_MODULES.join(", ")}`);
  const check = await run([venvPython(dir), "-c", `import ${RUNTIME_MODULES.join(", ")}`]);
  if (check.code !== 0) {
    throw new SpeechRuntimeInstallError(`the packages installed but do not import (exit ${check.code}):\n${lastLines(check.output, 8)}`);
  }
  // Stamped last: an interrupted or failed install is never mistaken for a current one.
  writeFileSync(join(dir, STAMP_FILE), `${REQUIREMENTS_SHA256}\n`);
  say(`speech runtime installed in ${dir} (${seconds().toFixed(0)} s)`);
  return { dir, changed: true, pythonVersion: version, seconds: seconds() };
}

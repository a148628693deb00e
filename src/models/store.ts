import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { log } from "../log.ts";
import { verifyFile } from "./checksum.ts";
import { findModel, type ModelFileSpec, type ModelSpec } from "./manifest.ts";

/**
 * Where verified models live: `<modelsDir>/<model name>/<file>`, plus a stamp recording the size and
 * mtime each file had when its checksum was verified, so start-up does not re-hash hundreds of MB.
 */
export const STAMP_FILE = ".verified.json";

type Stamp = Record<string, { size: number; mtimeMs: number; sha256?: string; sha1?: string }>;

export function modelDir(name: string, modelsDir: string = loadConfig().modelsDir): string {
  return join(modelsDir, name);
}

function readStamp(dir: string): Stamp {
  try {
    return JSON.parse(readFileSync(join(dir, STAMP_FILE), "utf8")) as Stamp;
  } catch {
    return {};
  }
}

/** Records that `file` in `dir` was just verified against the manifest. */
export function stampVerified(dir: string, file: string, spec: { sha256?: string; sha1?: string }): void {
  const stamp = readStamp(dir);
  const st = statSync(join(dir, file));
  stamp[file] = { size: st.size, mtimeMs: st.mtimeMs, sha256: spec.sha256, sha1: spec.sha1 };
  writeFileSync(join(dir, STAMP_FILE), JSON.stringify(stamp, null, 2));
}

function forgetVerified(dir: string, file: string): void {
  const stamp = readStamp(dir);
  if (!(file in stamp)) return;
  delete stamp[file];
  writeFileSync(join(dir, STAMP_FILE), JSON.stringify(stamp, null, 2));
}

export type FileState = "missing" | "unverified" | "verified";

/** Cheap check: present, and unchanged since it was verified against the checksum the manifest holds now. */
export function fileState(dir: string, file: Pick<ModelFileSpec, "file" | "size" | "sha256" | "sha1">): FileState {
  const path = join(dir, file.file);
  if (!existsSync(path)) return "missing";
  const s = readStamp(dir)[file.file];
  const st = statSync(path);
  const same = s && s.size === st.size && s.mtimeMs === st.mtimeMs && s.size === file.size && s.sha256 === file.sha256 && s.sha1 === file.sha1;
  return same ? "verified" : "unverified";
}

export class ModelNotAvailableError extends Error {
  constructor(
    readonly model: string,
    detail: string,
  ) {
    super(`model '${model}' is not available (${detail}); run \`clipyard models pull ${model}\``);
    this.name = "ModelNotAvailableError";
  }
}

/**
 * The verified local folder of a model (for single-file models, the file itself).
 * Throws ModelNotAvailableError telling the user what to run when anything is missing or unverified.
 */
export function resolveModel(name: string, modelsDir?: string): string {
  const spec = findModel(name);
  const dir = modelDir(name, modelsDir);
  for (const f of spec.files) {
    const state = fileState(dir, f);
    if (state !== "verified") throw new ModelNotAvailableError(name, `${f.file} is ${state} in ${dir}`);
  }
  return spec.files.length === 1 ? join(dir, spec.files[0]!.file) : dir;
}

/** Bytes of a model changed after they were verified (same size and mtime, so the stamp missed it). */
export class ModelCorruptedError extends Error {
  constructor(readonly model: string) {
    super(`model file corrupted, run \`clipyard models pull ${model}\``);
    this.name = "ModelCorruptedError";
  }
}

/**
 * The expensive check the stamp stands in for: hashes every file of the model against the manifest.
 * Run when a worker using the model failed or answered implausibly, so a corrupted file is named as
 * such instead of blaming the media. A file that fails loses its stamp, so later jobs are refused up
 * front (resolveModel) rather than spending minutes on a broken model.
 */
export async function assertModelIntact(name: string, modelsDir?: string): Promise<void> {
  const spec = findModel(name);
  const dir = modelDir(name, modelsDir);
  for (const f of spec.files) {
    const verdict = await verifyFile(join(dir, f.file), f);
    if (verdict.ok) continue;
    log.error("model file corrupted", { model: name, file: join(dir, f.file), reason: verdict.reason });
    forgetVerified(dir, f.file);
    throw new ModelCorruptedError(name);
  }
}

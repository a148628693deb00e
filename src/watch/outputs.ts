import { constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { JobRow } from "../db/schema.ts";
import { localJobOutput } from "../jobs/local-output.ts";
import { jobOutputDir, type StoredOutput } from "../pipeline/output.ts";
import { presentJob, type PresentContext } from "../jobs/present.ts";

/** The folder inside a watched folder that receives results; never scanned for input. */
export const OUTPUT_FOLDER = "clipyard";

// Leftovers of a run killed mid-write start with these; they are never a finished result.
const PARTIAL = ".partial-";
const REPLACED = ".replaced-";

/**
 * The API's job object, with the output's files named by their file names in the output folder
 * (as `clipyard process` writes job.json) rather than by URLs.
 */
export function localJobJson(job: JobRow, present: PresentContext) {
  const api = presentJob(job, present);
  return job.status === "complete" && job.output ? { ...api, output: localJobOutput(JSON.parse(job.output) as StoredOutput) } : api;
}

/** Removes what a killed run left half written under DIR/clipyard/. */
export function removeOutputLeftovers(watchDir: string): void {
  const root = join(watchDir, OUTPUT_FOLDER);
  if (!existsSync(root)) return;
  for (const name of readdirSync(root)) {
    if (name.startsWith(PARTIAL) || name.startsWith(REPLACED)) rmSync(join(root, name), { recursive: true, force: true });
  }
}

/**
 * Writes DIR/clipyard/<name>/: every file the job wrote (clips, trailer, notes.md, transcript
 * files, exports) and job.json; a failed job gets job.json alone, with its error. Built in a
 * hidden folder and renamed into place, so the folder a user sees is always whole; a newer version
 * of the same file replaces the older results.
 */
export function writeJobFolder(opts: { dataDir: string; present: PresentContext; watchDir: string; name: string; job: JobRow }): string {
  const root = join(opts.watchDir, OUTPUT_FOLDER);
  mkdirSync(root, { recursive: true });
  const temp = mkdtempSync(join(root, PARTIAL));
  try {
    if (opts.job.status === "complete") {
      const from = jobOutputDir(opts.dataDir, opts.job.id);
      // A copy, not a link: editing a result in the watched folder must not change what the API serves.
      for (const f of readdirSync(from)) copyFileSync(join(from, f), join(temp, f), constants.COPYFILE_FICLONE);
    }
    writeFileSync(join(temp, "job.json"), JSON.stringify(localJobJson(opts.job, opts.present), null, 2));
    const target = join(root, opts.name);
    // rename() cannot replace a non-empty folder: move the old results aside first.
    const aside = existsSync(target) ? mkdtempSync(join(root, REPLACED)) : null;
    if (aside) renameSync(target, join(aside, "old"));
    renameSync(temp, target);
    if (aside) rmSync(aside, { recursive: true, force: true });
    return target;
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }
}

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { log } from "./log.ts";

/**
 * Temporary work folders (transcription, render, trailer, frame sampling). Each name carries the pid
 * of the process that made it, so a later start can tell the folders of a run that died (kill -9,
 * power loss: no cleanup ran) from those of an appliance still running beside it.
 */
export type ScratchKind = "asr" | "render" | "trailer" | "frames";

const SCRATCH_NAME = /^clipyard-(asr|render|trailer|frames)-(\d+)-[^/]+$/;

const prefix = (kind: ScratchKind) => join(tmpdir(), `clipyard-${kind}-${process.pid}-`);

export const scratchDir = (kind: ScratchKind): Promise<string> => mkdtemp(prefix(kind));
export const scratchDirSync = (kind: ScratchKind): string => mkdtempSync(prefix(kind));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the pid exists but belongs to someone else; not ours to judge, so keep its folders.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes the scratch folders of processes that no longer exist; returns what it removed. */
export function sweepDeadScratch(dir: string = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = SCRATCH_NAME.exec(name);
    if (!m || Number(m[2]) === process.pid || alive(Number(m[2]))) continue;
    rmSync(join(dir, name), { recursive: true, force: true });
    removed.push(name);
  }
  if (removed.length) log.info("removed work folders of a previous run", { count: removed.length, dir });
  return removed;
}

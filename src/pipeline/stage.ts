import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { JobErrorCode } from "../errors.ts";
import type { JobRow } from "../db/schema.ts";
import type { StoredOutput } from "./output.ts";

/**
 * The pipeline is a list of stages behind one interface. Each stage reads what earlier stages left in
 * `ctx.state`, adds its own results, and reports progress. After every stage the state is
 * checkpointed to the job's work folder, so a job interrupted by a crash resumes at the stage it was
 * in rather than from the start.
 */
export interface StageContext<S = Record<string, unknown>> {
  jobId: string;
  workDir: string;
  state: S;
  /** Progress within the current stage, 0..1. */
  report(fraction: number): void;
  signal: AbortSignal;
}

export interface Stage<S = Record<string, unknown>> {
  name: string;
  /** Relative share of the whole pipeline's time, for the progress percentage. */
  weight: number;
  run(ctx: StageContext<S>): Promise<void>;
}

/** A whole pipeline as the job runner drives it: a job's stages, the state they start from, what it stores. */
export interface LivePipeline<S extends Record<string, unknown>> {
  stages(job: JobRow): Stage<S>[];
  initialState(job: JobRow): S;
  output(state: S, job: JobRow): StoredOutput;
}

/**
 * A failure with the job error code it maps to. The message becomes the job's error.message, which
 * the customer reads: a plain sentence, never a path, a traceback or a tool's stderr. Those go in
 * `cause`, which the runner logs with the job id. Anything else thrown becomes analysis_failed.
 */
export class PipelineError extends Error {
  constructor(
    readonly code: JobErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface Checkpoint<S> {
  done: string[];
  state: S;
}

export function readCheckpoint<S>(workDir: string): Checkpoint<S> | undefined {
  const path = join(workDir, "checkpoint.json");
  return existsSync(path) ? withLocalSource(workDir, JSON.parse(readFileSync(path, "utf8")) as Checkpoint<S>) : undefined;
}

/**
 * The checkpoint names the acquired source by its absolute path, but the data folder may have moved
 * since (`clipyard restore` into another folder or onto another machine, an operator's `mv`): a
 * source acquired into the job's own folder is found there again, so the job resumes and its clips
 * re-render. A path outside it (the CLI's own input file) is left as it was.
 */
function withLocalSource<S>(workDir: string, cp: Checkpoint<S>): Checkpoint<S> {
  const source = (cp.state as { source?: { path?: unknown } } | undefined)?.source;
  if (!source || typeof source.path !== "string" || existsSync(source.path)) return cp;
  const here = join(workDir, "source", basename(source.path));
  if (existsSync(here)) source.path = here;
  return cp;
}

export function writeCheckpoint<S>(workDir: string, cp: Checkpoint<S>): void {
  const path = join(workDir, "checkpoint.json");
  writeFileSync(path + ".tmp", JSON.stringify(cp));
  renameSync(path + ".tmp", path); // atomic replace: a crash leaves the old or the new, never half
}

/**
 * A copy of the checkpoint other nodes can read (shared object storage): with one, a job whose worker
 * died resumes on whichever node takes it over, from the mirror rather than from this node's disk.
 */
export interface CheckpointMirror<S> {
  /** The latest saved checkpoint, with whatever it refers to made local again; undefined to start over. */
  load(): Promise<Checkpoint<S> | undefined>;
  /** Saves the checkpoint after `stage`, and first whatever files that stage made which a resume elsewhere needs. */
  save(cp: Checkpoint<S>, stage: string): Promise<void>;
}

export interface RunOptions<S> {
  jobId: string;
  workDir: string;
  initialState: S;
  signal: AbortSignal;
  onProgress(stage: string, percent: number): void;
  mirror?: CheckpointMirror<S>;
}

export async function runStages<S extends Record<string, unknown>>(stages: Stage<S>[], opts: RunOptions<S>): Promise<S> {
  mkdirSync(opts.workDir, { recursive: true });
  // With a mirror, this node's own checkpoint may be stale: another node may have gone further since.
  const cp = (opts.mirror ? await opts.mirror.load() : readCheckpoint<S>(opts.workDir)) ?? { done: [], state: opts.initialState };
  const total = stages.reduce((a, s) => a + s.weight, 0) || 1;
  let before = 0;
  for (const stage of stages) {
    if (cp.done.includes(stage.name)) {
      before += stage.weight;
      continue;
    }
    opts.signal.throwIfAborted();
    const base = before;
    const report = (f: number) =>
      opts.onProgress(stage.name, Math.min(100, Math.round(((base + stage.weight * Math.max(0, Math.min(1, f))) / total) * 100)));
    report(0);
    await stage.run({ jobId: opts.jobId, workDir: opts.workDir, state: cp.state, report, signal: opts.signal });
    before += stage.weight;
    cp.done.push(stage.name);
    await opts.mirror?.save(cp, stage.name);
    writeCheckpoint(opts.workDir, cp);
  }
  return cp.state;
}

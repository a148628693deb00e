import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { jobOutputKey, jobResumePrefix, type ObjectStore } from "../storage/index.ts";
import { contentTypeFor } from "../storage/content-type.ts";
import { SOURCE_FILE } from "./acquire.ts";
import { readCheckpoint, writeCheckpoint, type CheckpointMirror, type Checkpoint } from "./stage.ts";
import type { MediaInfo } from "./types.ts";

/**
 * Uploads every file in a job's local output folder to the store and removes the local copy: the
 * share page serves them from the bucket, and a node that takes the job over finds them there.
 */
export async function publishOutputs(store: ObjectStore, jobId: string, outDir: string): Promise<string[]> {
  if (!existsSync(outDir)) return [];
  const names = readdirSync(outDir).filter((n) => /^[A-Za-z0-9._-]+$/.test(n));
  for (const name of names) {
    await store.putFile(jobOutputKey(jobId, name), join(outDir, name), { contentType: contentTypeFor(name), contentDisposition: `inline; filename="${name}"` });
    rmSync(join(outDir, name), { force: true });
  }
  return names;
}

/**
 * The live pipeline's checkpoint in shared storage, under jobs/<id>/resume/: checkpoint.json and the
 * acquired source. The source is stored rather than acquired again on resume: a URL may have gone or
 * changed (the transcript's times must match the bytes the clips are cut from), YouTube may refuse or
 * be slow, and a client may delete its upload while the job runs. Outputs a stage rendered go to
 * jobs/<id>/out/ before the checkpoint that says the stage is done, so a checkpoint never names a
 * file that only a dead node had.
 */
export function sharedCheckpoint<S extends { source?: MediaInfo }>(store: ObjectStore, jobId: string, workDir: string, outDir: string): CheckpointMirror<S> {
  const prefix = jobResumePrefix(jobId);
  return {
    load: () => fetchCheckpoint<S>(store, jobId, workDir, { source: true }),
    async save(cp, stage) {
      if (stage === "acquire" && cp.state.source) await store.putFile(`${prefix}${SOURCE_FILE}`, cp.state.source.path);
      await publishOutputs(store, jobId, outDir);
      await store.putText(`${prefix}checkpoint.json`, JSON.stringify(cp));
    },
  };
}

/**
 * A finished job's checkpoint made local from the bucket, on a node that did not run the job: a
 * re-render needs its words (the API node snaps new times to sentence edges) and its source (the
 * render worker cuts from it). Nothing is fetched when this node already has what is asked for.
 */
export async function restoreCheckpoint(store: ObjectStore, jobId: string, workDir: string, opts: { source: boolean }): Promise<void> {
  const local = readCheckpoint<{ source?: MediaInfo }>(workDir);
  if (local && (!opts.source || !local.state.source || existsSync(local.state.source.path))) return;
  const cp = await fetchCheckpoint(store, jobId, workDir, opts);
  if (!cp) return;
  mkdirSync(workDir, { recursive: true });
  writeCheckpoint(workDir, cp);
}

/**
 * The bucket's checkpoint with its source path made this node's (the path in it is the node that
 * acquired it's); with `source`, the source comes down from the bucket first. Undefined when there is
 * no checkpoint, or the source asked for is missing.
 */
async function fetchCheckpoint<S extends { source?: MediaInfo }>(store: ObjectStore, jobId: string, workDir: string, opts: { source: boolean }): Promise<Checkpoint<S> | undefined> {
  const prefix = jobResumePrefix(jobId);
  const text = await store.getText(`${prefix}checkpoint.json`);
  if (text === undefined) return undefined;
  const cp = JSON.parse(text) as Checkpoint<S>;
  if (cp.state.source) {
    const path = join(workDir, "source", SOURCE_FILE);
    if (opts.source && !(await store.download(`${prefix}${SOURCE_FILE}`, path))) return undefined;
    cp.state.source = { ...cp.state.source, path };
  }
  return cp;
}

/**
 * A failed job's checkpoint and partial outputs leave the bucket. A complete job keeps its
 * checkpoint (the source and the transcript): its clips can be re-rendered on any node.
 */
export async function discardSharedCheckpoint(store: ObjectStore, jobId: string): Promise<void> {
  await store.deletePrefix(jobResumePrefix(jobId));
  await store.deletePrefix(`jobs/${jobId}/out/`);
}

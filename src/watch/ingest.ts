import { statSync } from "node:fs";
import { join } from "node:path";
import type { Scope } from "../accounts/scope.ts";
import { ApiError } from "../errors.ts";
import type { JobOptions } from "../jobs/schema.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { submitJob, type SubmitEffect } from "../jobs/submit.ts";
import { MediaProbeError, probeMedia } from "../media/probe.ts";
import type { UploadService } from "../uploads/service.ts";
import { discardUpload, keepUploadForJob } from "../uploads/store.ts";
import type { FileStamp } from "./settle.ts";
import { recordFile } from "./store.ts";

export interface IngestDeps {
  db: Db;
  clock: Clock;
  dataDir: string;
  uploads: UploadService;
  timeScale: number;
  /** Effects committed with every new live job (the billing hold), as for POST /v1/jobs. */
  liveEffects: SubmitEffect[];
}

export interface WatchedFile {
  folder: string;
  name: string;
  stamp: FileStamp;
}

export type IngestOutcome =
  | { kind: "job"; jobId: string }
  | { kind: "skipped"; reason: string }
  /** Already settled by another watcher, or changed while it was copied: nothing recorded. */
  | { kind: "gone" }
  /** Refused for now (billing): nothing recorded, so a later scan tries again. */
  | { kind: "refused"; problem: string };

/** Thrown inside the job's transaction to undo it: the file was settled elsewhere meanwhile. */
class AlreadySettled extends Error {}

const sameStamp = (a: FileStamp, b: FileStamp) => a.size === b.size && a.mtimeMs === b.mtimeMs;

/**
 * Turns a settled file into a job, at most once per version. The file is copied into an upload
 * first (the job never reads the user's file, which may change), then the job, the upload's
 * keep-alive and the watch_files row commit in one transaction, whose primary key refuses a second
 * job for the same version. A copy left behind by a crash before the commit is an upload no job
 * uses, which expires like any other.
 */
export async function ingestFile(deps: IngestDeps, scope: Scope, options: JobOptions, file: WatchedFile, requestId: string): Promise<IngestOutcome> {
  const path = join(file.folder, file.name);
  const skip = (reason: string) => {
    const recorded = recordFile(deps.db, { ...row(file, scope, deps.clock.now()), jobId: null, skippedReason: reason });
    return recorded ? ({ kind: "skipped", reason } as const) : ({ kind: "gone" } as const);
  };
  try {
    await probeMedia(path);
  } catch (err) {
    if (!(err instanceof MediaProbeError)) throw err;
    return skip(`not readable media: ${err.message}`);
  }
  let upload;
  try {
    upload = await deps.uploads.receiveRaw(Bun.file(path).stream(), file.stamp.size, scope, file.name);
  } catch (err) {
    if (err instanceof ApiError && err.code === "body_too_large") return skip(err.message);
    throw err;
  }
  const discard = () => discardUpload(deps.db, deps.dataDir, upload.id);
  let now: FileStamp | null = null;
  try {
    const s = statSync(path);
    now = { size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
  } catch {}
  if (!now || !sameStamp(now, file.stamp)) {
    discard();
    return { kind: "gone" };
  }
  const record: SubmitEffect = (job) => {
    if (!recordFile(deps.db, { ...row(file, scope, deps.clock.now()), jobId: job.id, skippedReason: null })) throw new AlreadySettled();
    keepUploadForJob(deps.db, deps.clock, upload.id);
  };
  try {
    const { job } = submitJob(deps.db, deps.clock, scope, { source: { type: "upload", upload_id: upload.id }, options }, {
      requestId,
      timeScale: deps.timeScale,
      effects: [record, ...(scope.env === "live" ? deps.liveEffects : [])],
    });
    return { kind: "job", jobId: job.id };
  } catch (err) {
    discard();
    if (err instanceof AlreadySettled) return { kind: "gone" };
    if (err instanceof ApiError) return { kind: "refused", problem: `${err.code}: ${err.message}` };
    throw err;
  }
}

function row(file: WatchedFile, scope: Scope, now: number) {
  return { folder: file.folder, name: file.name, size: file.stamp.size, mtimeMs: file.stamp.mtimeMs, orgId: scope.orgId, outputWrittenAt: null, createdAt: now };
}

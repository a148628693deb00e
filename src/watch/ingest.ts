import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
import { join } from "node:path";
import type { Scope } from "../accounts/scope.ts";
import { ApiError } from "../errors.ts";
import type { JobOptions } from "../jobs/schema.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { submitJob, type SubmitEffect } from "../jobs/submit.ts";
import { MediaProbeError, probeOpenMedia } from "../media/probe.ts";
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
  /** Runs after the watcher's checks, just before the file is opened: the window a swap would use (tests race it here). */
  beforeOpen?(path: string): void | Promise<void>;
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
const stampOf = (s: Stats): FileStamp => ({ size: s.size, mtimeMs: Math.trunc(s.mtimeMs) });

/**
 * Opens the listed name itself, never what it points to: O_NOFOLLOW refuses a symlink put in its
 * place after the listing (another organisation's source, a secret), O_NONBLOCK keeps a FIFO from
 * hanging the open. Null when the name is no longer a file this watcher may read.
 */
function openListedFile(path: string): number | null {
  try {
    return openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
}

/** The first `size` bytes of an open file, read at explicit offsets (ffprobe shares nothing with them). */
function streamFrom(fd: number, size: number): ReadableStream<Uint8Array> {
  let position = 0;
  return new ReadableStream({
    pull(controller) {
      if (position >= size) return controller.close();
      const buf = new Uint8Array(Math.min(1 << 20, size - position));
      const n = readSync(fd, buf, 0, buf.length, position);
      if (n <= 0) return controller.close();
      position += n;
      controller.enqueue(n === buf.length ? buf : buf.subarray(0, n));
    },
  });
}

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
  await deps.beforeOpen?.(path);
  // One descriptor from here on: the stat, the probe and the copy all read what was opened, and no
  // path is resolved again after the check.
  const fd = openListedFile(path);
  if (fd === null) return { kind: "gone" };
  let upload;
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile() || !sameStamp(stampOf(opened), file.stamp)) return { kind: "gone" };
    try {
      await probeOpenMedia(fd, file.name);
    } catch (err) {
      if (!(err instanceof MediaProbeError)) throw err;
      return skip(`not readable media: ${err.message}`);
    }
    try {
      upload = await deps.uploads.receiveRaw(streamFrom(fd, file.stamp.size), file.stamp.size, scope, file.name);
    } catch (err) {
      if (err instanceof ApiError && err.code === "body_too_large") return skip(err.message);
      throw err;
    }
    // Changed while it was copied (still being written after all): the next scans settle it again.
    if (!sameStamp(stampOf(fstatSync(fd)), file.stamp)) {
      discardUpload(deps.db, deps.dataDir, upload.id);
      return { kind: "gone" };
    }
  } finally {
    closeSync(fd);
  }
  const discard = () => discardUpload(deps.db, deps.dataDir, upload.id);
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

import { and, eq, inArray, isNull } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { jobs, watchFiles, type JobRow, type WatchFileRow } from "../db/schema.ts";
import type { FileStamp } from "./settle.ts";

/** One small function per statement on watch_files. A file version is (folder, name, size, mtime). */

export const versionKey = (name: string, stamp: FileStamp): string => `${name}\u0000${stamp.size}\u0000${stamp.mtimeMs}`;

/** Every file version this folder has settled (a job made, or skipped for good). */
export function settledVersions(db: Db, folder: string): Set<string> {
  const rows = db.select({ name: watchFiles.name, size: watchFiles.size, mtimeMs: watchFiles.mtimeMs }).from(watchFiles).where(eq(watchFiles.folder, folder)).all();
  return new Set(rows.map((r) => versionKey(r.name, r)));
}

/**
 * Records a file version once; false when it was already recorded (by an earlier run or another
 * watcher), in which case the caller's transaction must not make its job.
 */
export function recordFile(db: Db, row: WatchFileRow): boolean {
  return db.insert(watchFiles).values(row).onConflictDoNothing().returning({ name: watchFiles.name }).get() !== undefined;
}

/** Files whose job has ended but whose results are not yet in the output folder. */
export function endedWithoutOutput(db: Db, folder: string): Array<{ file: WatchFileRow; job: JobRow }> {
  return db
    .select({ file: watchFiles, job: jobs })
    .from(watchFiles)
    .innerJoin(jobs, eq(jobs.id, watchFiles.jobId))
    .where(and(eq(watchFiles.folder, folder), isNull(watchFiles.outputWrittenAt), inArray(jobs.status, ["complete", "failed"])))
    // Oldest first: a newer version of a file, written last, is the one left in the output folder.
    .orderBy(watchFiles.createdAt)
    .all();
}

export function markOutputWritten(db: Db, file: WatchFileRow, now: number): void {
  db.update(watchFiles)
    .set({ outputWrittenAt: now })
    .where(and(eq(watchFiles.folder, file.folder), eq(watchFiles.name, file.name), eq(watchFiles.size, file.size), eq(watchFiles.mtimeMs, file.mtimeMs)))
    .run();
}

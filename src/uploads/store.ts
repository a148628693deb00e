import { and, eq, lte, sql } from "drizzle-orm";
import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/client.ts";
import { jobs, uploads, type UploadRow } from "../db/schema.ts";
import { newId } from "../ids.ts";
import { uploadFilePath, uploadInfoPath, uploadsDir } from "../pipeline/acquire.ts";
import { log } from "../log.ts";
import { uploadInfoKey, uploadKey, type ObjectStore } from "../storage/index.ts";

/**
 * Uploaded media: a row per upload (owner organisation and environment, state, expiry) and the file
 * under the data directory's uploads/ folder. An upload that no job uses expires; a job submitted
 * with it pushes the expiry out, so it cannot vanish before the job acquires it.
 */
export const UPLOAD_TTL_MS = 24 * 3600 * 1000;
/**
 * An unfinished (tus) upload lives this long after its last bytes arrived: each PATCH renews it. A
 * client resuming over a flaky link comes back within minutes; one that went away for good should not
 * hold disk and its organisation's quota for a whole day. Complete, it gets UPLOAD_TTL_MS.
 */
export const UNFINISHED_UPLOAD_TTL_MS = 6 * 3600 * 1000;

export interface UploadOwner {
  orgId: string;
  env: "live" | "test";
}

export const newUploadId = (): string => newId("upl");

export function insertUpload(db: Db, clock: Clock, owner: UploadOwner, id: string, opts: { size: number | null; filename: string | null; complete: boolean }): UploadRow {
  const now = clock.now();
  const row: UploadRow = {
    id,
    orgId: owner.orgId,
    env: owner.env,
    status: opts.complete ? "complete" : "receiving",
    size: opts.size,
    filename: opts.filename,
    createdAt: now,
    completedAt: opts.complete ? now : null,
    expiresAt: now + (opts.complete ? UPLOAD_TTL_MS : UNFINISHED_UPLOAD_TTL_MS),
  };
  db.insert(uploads).values(row).run();
  return row;
}

export function markUploadComplete(db: Db, clock: Clock, id: string, size: number): void {
  const now = clock.now();
  db.update(uploads).set({ status: "complete", size, completedAt: now, expiresAt: now + UPLOAD_TTL_MS }).where(eq(uploads.id, id)).run();
}

/** Bytes of an unfinished upload arrived: it lives another UNFINISHED_UPLOAD_TTL_MS from now. */
export function renewUnfinishedUpload(db: Db, clock: Clock, id: string): void {
  const until = clock.now() + UNFINISHED_UPLOAD_TTL_MS;
  db.update(uploads)
    .set({ expiresAt: sql`CASE WHEN ${uploads.expiresAt} > ${until} THEN ${uploads.expiresAt} ELSE ${until} END` })
    .where(and(eq(uploads.id, id), eq(uploads.status, "receiving")))
    .run();
}

/** The client terminated it (tus DELETE): the store has removed the files. */
export function deleteUpload(db: Db, id: string): void {
  db.delete(uploads).where(eq(uploads.id, id)).run();
}

/**
 * The upload if it belongs to this organisation and environment and has not expired; undefined
 * otherwise, so a foreign or expired id reads exactly like an unknown one.
 */
export function findOwnUpload(db: Db, clock: Clock, owner: UploadOwner, id: string): UploadRow | undefined {
  const row = db.select().from(uploads).where(and(eq(uploads.id, id), eq(uploads.orgId, owner.orgId), eq(uploads.env, owner.env))).get();
  return row && row.expiresAt > clock.now() ? row : undefined;
}

/**
 * Bytes an organisation's uploads hold or have claimed, both environments together (they share the
 * disk): the declared size of each upload not yet expired, finished or not. A tus upload that defers
 * its length counts what has arrived, through `received`.
 */
export function uploadBytesHeld(db: Db, clock: Clock, orgId: string, received: (id: string) => number): number {
  const rows = db
    .select({ id: uploads.id, size: uploads.size })
    .from(uploads)
    .where(and(eq(uploads.orgId, orgId), sql`${uploads.expiresAt} > ${clock.now()}`))
    .all();
  return rows.reduce((sum, r) => sum + (r.size ?? received(r.id)), 0);
}

/** A job will read this upload: keep it at least another lifetime. */
export function keepUploadForJob(db: Db, clock: Clock, id: string): void {
  const until = clock.now() + UPLOAD_TTL_MS;
  // CASE, not SQLite's two-argument max(): the same text runs on PostgreSQL.
  db.update(uploads).set({ expiresAt: sql`CASE WHEN ${uploads.expiresAt} > ${until} THEN ${uploads.expiresAt} ELSE ${until} END` }).where(eq(uploads.id, id)).run();
}

/**
 * Deletes expired uploads (row, file, and the tus metadata beside it), except those a queued or
 * processing job still has to read. Returns the ids removed.
 */
export function sweepExpiredUploads(db: Db, clock: Clock, dataDir: string, store?: ObjectStore): string[] {
  const inUse = db
    .select({ id: jobs.sourceUrl })
    .from(jobs)
    .where(and(eq(jobs.sourceType, "upload"), sql`${jobs.status} IN ('queued','processing')`));
  const expired = db
    .select({ id: uploads.id })
    .from(uploads)
    .where(and(lte(uploads.expiresAt, clock.now()), sql`${uploads.id} NOT IN ${inUse}`))
    .all()
    .map((r) => r.id);
  for (const id of expired) {
    discardUpload(db, dataDir, id);
    // The row is gone first: a job can no longer be submitted with the id while its object goes.
    if (store?.shared) {
      Promise.all([store.delete(uploadKey(id)), store.delete(uploadInfoKey(id))]).catch((err) =>
        log.warn("could not delete an expired upload from shared storage", { upload: id, error: (err as Error).message }),
      );
    }
  }
  removeStalePartials(dataDir, clock.now() - UPLOAD_TTL_MS);
  return expired;
}

/** Removes an upload's file, the metadata beside it, and its row. */
export function discardUpload(db: Db, dataDir: string, id: string): void {
  rmSync(uploadFilePath(dataDir, id), { force: true });
  rmSync(uploadInfoPath(dataDir, id), { force: true });
  deleteUpload(db, id);
}

/** A raw upload cut off by a crash leaves its .partial file behind, with no row to expire it. */
function removeStalePartials(dataDir: string, olderThan: number): void {
  const dir = uploadsDir(dataDir);
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".partial")) continue;
    const path = join(dir, name);
    if (statSync(path).mtimeMs < olderThan) rmSync(path, { force: true });
  }
}

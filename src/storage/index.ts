import { LocalStore, type ObjectStore } from "./store.ts";
import type { S3Settings } from "../config.ts";
import { S3Store } from "./s3.ts";

export type { ObjectStore, ObjectMeta } from "./store.ts";
export { LocalStore } from "./store.ts";
export { S3Store } from "./s3.ts";

/** How long a presigned media URL handed to a browser stays valid: long enough to start and seek a clip, short enough that a leaked URL soon stops working. */
export const PRESIGN_SECONDS = 15 * 60;

/** Job-scoped keys: outputs the share page serves, and what a resume on another node needs. */
export const jobOutputKey = (jobId: string, name: string): string => `jobs/${jobId}/out/${name}`;
export const jobResumePrefix = (jobId: string): string => `jobs/${jobId}/resume/`;
export const uploadKey = (uploadId: string): string => `uploads/${uploadId}`;
export const uploadInfoKey = (uploadId: string): string => `uploads/${uploadId}.json`;
/** A brand logo, content-addressed (its normalised PNG's SHA-256): jobs that rendered with it keep naming it. */
export const brandLogoKey = (sha256: string): string => `brand/${sha256}.png`;

/** The store the configuration names: S3 when CLIPYARD_STORAGE_URL is set, else the data directory. */
export function openStore(dataDir: string, s3?: S3Settings): ObjectStore {
  return s3 ? new S3Store(s3) : new LocalStore(dataDir);
}

import type { UploadResource } from "./schema.ts";
import { isoUtc } from "../clock.ts";
import type { UploadRow } from "../db/schema.ts";

export function presentUpload(row: UploadRow, receivedBytes: number): UploadResource {
  return {
    id: row.id,
    object: "upload",
    status: row.status,
    size: row.size,
    received_bytes: row.status === "complete" ? (row.size ?? receivedBytes) : receivedBytes,
    filename: row.filename,
    created_at: isoUtc(row.createdAt),
    expires_at: isoUtc(row.expiresAt),
    livemode: row.env === "live",
  };
}

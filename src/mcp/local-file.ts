import { statSync } from "node:fs";
import { basename, isAbsolute } from "node:path";
import { z } from "zod";
import type { ApiClient, ApiResult } from "./api-client.ts";

/**
 * submit_job's `local_file` source: a path on the machine the MCP server runs on (usually the
 * appliance's own). The server streams the file to POST /v1/uploads and submits the job with the
 * upload, so an assistant can hand over an episode that is a file on disk, not a URL.
 */
export const LocalFileSourceSchema = z
  .object({
    type: z.literal("local_file").describe("A file on the machine this MCP server runs on: uploaded to the appliance, then submitted as an upload source"),
    path: z.string().describe("Absolute path of an audio or video file readable by the MCP server"),
  })
  .strict();

type LocalFileSource = z.infer<typeof LocalFileSourceSchema>;

const invalidPath = (message: string): ApiResult<never> => ({
  ok: false,
  error: { type: "invalid_request_error", code: "invalid_parameter", message, param: "source.path", request_id: null },
});

/**
 * The upload for one version of a file (path, size, modification time), kept for this server's
 * lifetime: a retried submit_job with the same idempotency_key must send the same body, so it must
 * name the same upload rather than a fresh one.
 */
const uploaded = new Map<string, string>();

export async function uploadLocalFile(client: ApiClient, source: LocalFileSource): Promise<ApiResult<{ type: "upload"; upload_id: string }>> {
  if (!isAbsolute(source.path)) return invalidPath(`source.path must be an absolute path, got ${source.path}`);
  let stat;
  try {
    stat = statSync(source.path);
  } catch {
    return invalidPath(`source.path: no file at ${source.path} on the machine the MCP server runs on`);
  }
  if (!stat.isFile()) return invalidPath(`source.path: ${source.path} is not a regular file`);
  const version = `${source.path}\0${stat.size}\0${stat.mtimeMs}`;
  const known = uploaded.get(version);
  if (known) return { ok: true, value: { type: "upload", upload_id: known } };
  const upload = await client.uploadFile(source.path, basename(source.path));
  if (!upload.ok) return upload;
  uploaded.set(version, upload.value.id);
  return { ok: true, value: { type: "upload", upload_id: upload.value.id } };
}

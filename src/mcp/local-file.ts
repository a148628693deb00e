import { closeSync, constants, fstatSync, openSync, readlinkSync, realpathSync } from "node:fs";
import { basename, isAbsolute, relative, sep } from "node:path";
import { z } from "zod";
import { loadConfig } from "../config.ts";
import { MEDIA_CONTAINERS } from "../media/ffmpeg.ts";
import { MediaProbeError, probeOpenMedia } from "../media/probe.ts";
import type { ApiClient, ApiResult } from "./api-client.ts";

/**
 * submit_job's `local_file` source: a path on the machine the MCP server runs on (usually the
 * appliance's own). The server streams the file to POST /v1/uploads and submits the job with the
 * upload, so an assistant can hand over an episode that is a file on disk, not a URL.
 *
 * The path comes from a language model, which reads text a remote party wrote (a web page, an
 * email, a transcript), so it is not the local user's choice: only media files in the folders of
 * CLIPYARD_LOCAL_FILE_DIRS (default the home folder) are read, never a dot-folder (keys, tokens,
 * browser profiles) and never the appliance's data directory (the master key, other organisations'
 * sources). `clipyard process` and `clipyard watch` are not limited: the local user runs them on
 * their own files (docs/mcp.md).
 */
export const LocalFileSourceSchema = z
  .object({
    type: z.literal("local_file").describe("A file on the machine this MCP server runs on: uploaded to the appliance, then submitted as an upload source"),
    path: z.string().describe("Absolute path of an audio or video file in a folder the MCP server may read (CLIPYARD_LOCAL_FILE_DIRS, default the user's home; not in a dot-folder)"),
  })
  .strict();

type LocalFileSource = z.infer<typeof LocalFileSourceSchema>;

const invalidPath = (message: string): ApiResult<never> => ({
  ok: false,
  error: { type: "invalid_request_error", code: "invalid_parameter", message, param: "source.path", request_id: null },
});

/** Where local_file may read: the configured folders and the data directory, as real paths. */
export interface LocalFilePolicy {
  roots: string[];
  dataDir: string;
}

const real = (path: string): string => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

export function localFilePolicy(config = loadConfig()): LocalFilePolicy {
  return { roots: config.localFileDirs.map(real), dataDir: real(config.dataDir) };
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith(sep) ? dir : dir + sep);

/** Why the opened file (its real path, as the kernel names it) may not be read; null when it may. */
export function refusal(actual: string, policy: LocalFilePolicy): string | null {
  if (inside(actual, policy.dataDir)) return "it is inside the appliance's data directory, which local_file never reads";
  const root = policy.roots.find((r) => inside(actual, r));
  if (!root) return `it is outside the folders local_file may read (CLIPYARD_LOCAL_FILE_DIRS: ${policy.roots.join(":")})`;
  if (relative(root, actual).split(sep).some((part) => part.startsWith("."))) return "it is in a hidden (dot) folder or is a hidden file, which local_file never reads";
  return null;
}

/** The real path of what a descriptor has open: symlinks and `..` already resolved by the open itself. */
function openedPath(fd: number, fallback: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return real(fallback);
  }
}

/**
 * The upload for one version of a file (path, size, modification time), kept for this server's
 * lifetime: a retried submit_job with the same idempotency_key must send the same body, so it must
 * name the same upload rather than a fresh one.
 */
const uploaded = new Map<string, string>();

export async function uploadLocalFile(client: ApiClient, source: LocalFileSource, policy: LocalFilePolicy = localFilePolicy()): Promise<ApiResult<{ type: "upload"; upload_id: string }>> {
  if (!isAbsolute(source.path)) return invalidPath(`source.path must be an absolute path, got ${source.path}`);
  // Opened first and judged by what was opened: a path checked and then opened again could be
  // swapped (a symlink, a renamed folder) in between. O_NONBLOCK keeps a FIFO from hanging the open.
  let fd: number;
  try {
    fd = openSync(source.path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return invalidPath(`source.path: no readable file at ${source.path} on the machine the MCP server runs on`);
  }
  try {
    const why = refusal(openedPath(fd, source.path), policy);
    if (why) return invalidPath(`source.path: ${source.path} is refused: ${why}`);
    const stat = fstatSync(fd);
    if (!stat.isFile()) return invalidPath(`source.path: ${source.path} is not a regular file`);
    try {
      await probeOpenMedia(fd, basename(source.path));
    } catch (err) {
      if (!(err instanceof MediaProbeError)) throw err;
      return invalidPath(`source.path: ${source.path} is not audio or video in an accepted container (${Object.values(MEDIA_CONTAINERS).join(", ")})`);
    }
    const version = `${source.path}\0${stat.size}\0${stat.mtimeMs}`;
    const known = uploaded.get(version);
    if (known) return { ok: true, value: { type: "upload", upload_id: known } };
    const upload = await client.uploadFile(fd, basename(source.path));
    if (!upload.ok) return upload;
    uploaded.set(version, upload.value.id);
    return { ok: true, value: { type: "upload", upload_id: upload.value.id } };
  } finally {
    closeSync(fd);
  }
}

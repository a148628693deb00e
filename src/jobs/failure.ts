import { tmpdir } from "node:os";
import { ROOT_DIR, type Config } from "../config.ts";
import type { JobErrorCode } from "../errors.ts";
import { PipelineError } from "../pipeline/stage.ts";
import { isOutOfSpace } from "../storage/disk-space.ts";

/** The job error message when a disk the job writes to filled up: the appliance's fault, not the media's. */
export const OUT_OF_SPACE_FAILURE = "the appliance ran out of disk space while working on this job; its partial files were removed and it is not charged. Submit it again later";

/** The job error message for anything the pipeline did not anticipate. */
export const INTERNAL_FAILURE = "the job failed on an internal error; the appliance's log has the details under this job's id";

/**
 * What a failed job shows its customer: the spec's code and a plain sentence. Only PipelineError
 * messages are written for that; anything else (a traceback, a tool's stderr) stays in the log.
 * Local paths are cut out even so, as a last guard: they would tell one customer how the appliance
 * stores everyone's files.
 */
export function publicFailure(err: unknown, config: Pick<Config, "dataDir" | "modelsDir">): { code: JobErrorCode; message: string } {
  // Whatever stage it hit (a download, the decode, a render, an export), a full disk is not the
  // customer's media at fault, though the stage may have reported it as such.
  if (isOutOfSpace(err)) return { code: "analysis_failed", message: OUT_OF_SPACE_FAILURE };
  if (!(err instanceof PipelineError)) return { code: "analysis_failed", message: INTERNAL_FAILURE };
  return { code: err.code, message: withoutLocalPaths(err.message, [config.dataDir, config.modelsDir, tmpdir(), ROOT_DIR]) };
}

/**
 * Replaces any path under one of `roots` (longest root first) with a neutral phrase. A root counts
 * only where a path can start (after a space, quote, bracket, "=", ":" or "file://"), so the path
 * part of the customer's own URL (https://host/tmp/ep.mp4) is left alone.
 */
export function withoutLocalPaths(text: string, roots: string[]): string {
  let out = text;
  for (const root of [...new Set(roots)].filter((r) => r.length > 1).sort((a, b) => b.length - a.length)) {
    const escaped = root.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(new RegExp(`(^|[\\s'"\`(=:]|file://)${escaped}(?=$|/|[\\s'"\`,;)])[^\\s'"\`,;)]*`, "g"), "$1(a local file)");
  }
  return out;
}

/** Everything the log should keep about a failure: each message and stack down the cause chain. */
export function failureDetail(err: unknown): Array<{ message: string; stack?: string }> {
  const chain: Array<{ message: string; stack?: string }> = [];
  for (let e: unknown = err; e !== undefined && chain.length < 5; e = e instanceof Error ? e.cause : undefined) {
    chain.push(e instanceof Error ? { message: e.message, stack: e.stack } : { message: String(e) });
  }
  return chain;
}

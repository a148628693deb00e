import { canonicalJson, sha256Hex } from "../ids.ts";

/**
 * The sandbox's outcome table (spec §7) and its timing, as pure functions of the submission:
 * the same submission always gives the same result at the same offset.
 */
export type SandboxOutcome =
  | { kind: "success" }
  | { kind: "failure"; code: "youtube_ingestion_failed" | "transcription_failed"; message: string };

export function sandboxOutcome(source: { type: string; url: string }): SandboxOutcome {
  if (source.type === "youtube_url") {
    return { kind: "failure", code: "youtube_ingestion_failed", message: "Sandbox: youtube_url sources always fail ingestion." };
  }
  // An upload's "url" is its random id: the "fail" rule is about URLs a caller chooses.
  if (source.type !== "upload" && source.url.toLowerCase().includes("fail")) {
    return { kind: "failure", code: "transcription_failed", message: "Sandbox: the source URL contains \"fail\", so transcription fails." };
  }
  return { kind: "success" };
}

/** Seconds from submission to terminal, in [10, 70], before the time scale. */
export function sandboxDurationSeconds(source: { type: string; url: string }, options: object): number {
  const submission = { source: { type: source.type, url: source.url }, options };
  const h = Number.parseInt(sha256Hex(canonicalJson(submission)).slice(0, 8), 16) / 0xffffffff;
  return 10 + Math.round(h * 60_000) / 1000;
}

/** Share of the total spent queued before processing starts. */
export const SANDBOX_QUEUED_SHARE = 0.2;

import { z } from "zod";
import { speakersArg } from "../pipeline/transcribe/cast.ts";
import { JobOptionsSchema, type JobOptions } from "../jobs/schema.ts";
import { parseVocabularyList } from "../pipeline/transcribe/vocabulary.ts";

/** The job option flags `process` and `watch` share. */
export const JOB_OPTION_FLAGS = "[--trailer] [--caption-style STYLE] [--clips N] [--min-seconds S] [--max-seconds S] [--speakers N|\"NAME, NAME\"] [--vocabulary 'Name, Term'] [--language CODE|auto]";

/** Job options from the command line, checked by the API's own schema; a string says what is wrong. */
export function jobOptionsFromArgs(opts: Record<string, string | true>): JobOptions | string {
  const raw = {
    ...(opts.trailer ? { include_trailer: true } : {}),
    ...(typeof opts["caption-style"] === "string" ? { caption_style: opts["caption-style"] } : {}),
    ...(typeof opts.clips === "string" ? { clip_count: Number(opts.clips) } : {}),
    ...(typeof opts["min-seconds"] === "string" ? { min_clip_seconds: Number(opts["min-seconds"]) } : {}),
    ...(typeof opts["max-seconds"] === "string" ? { max_clip_seconds: Number(opts["max-seconds"]) } : {}),
    ...(typeof opts.speakers === "string" ? { speakers: speakersArg(opts.speakers) } : {}),
    // Comma-separated, as a producer types it; the same limits as the API's option.
    ...(typeof opts.vocabulary === "string" ? { vocabulary: parseVocabularyList(opts.vocabulary) } : {}),
    ...(typeof opts.language === "string" ? { language: opts.language } : {}),
  };
  const parsed = JobOptionsSchema.safeParse(raw);
  return parsed.success ? parsed.data : z.prettifyError(parsed.error);
}

import { z } from "zod";
import { JobOptionsSchema } from "../jobs/schema.ts";
import { BoundedUrlSchema, MAX_URL_LENGTH } from "../net/url-bounds.ts";

const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** A calendar date (midnight UTC) or a date-time with its offset; parsed to epoch milliseconds. */
export const SinceSchema = z
  .string()
  .refine((s) => ISO_DATE.test(s) && !Number.isNaN(Date.parse(s)), "must be an ISO 8601 date (2026-11-01) or date-time with offset (2026-11-01T09:00:00Z)")
  .transform((s) => Date.parse(s));

export const FeedCreateSchema = z
  .object({
    url: BoundedUrlSchema.describe(`RSS 2.0 or Atom feed URL, at most ${MAX_URL_LENGTH} characters (http and LAN addresses only where the operator allows them)`),
    since: SinceSchema.optional().describe("Only episodes published after this date or date-time become jobs; absent: every episode in the feed"),
    options: JobOptionsSchema.optional().describe("Job options for every episode's job (as in POST /v1/jobs)"),
  })
  .strict();

export type FeedCreate = z.infer<typeof FeedCreateSchema>;

export const FeedSchema = z.object({
  id: z.string().describe("feed_ prefix"),
  object: z.literal("feed"),
  url: z.string(),
  since: z.string().nullable(),
  options: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  last_polled_at: z.string().nullable(),
  next_poll_at: z.string(),
  last_status: z.enum(["pending", "ok", "not_modified", "error"]).describe("pending: not polled yet; not_modified: the server answered 304"),
  last_error: z.string().nullable().describe("why the last poll failed, or which episodes could not become jobs (retried at the next poll)"),
  items_seen: z.number().int().describe("episodes settled: a job made, or skipped for good"),
  jobs_created: z.number().int(),
  livemode: z.boolean(),
});

export type Feed = z.infer<typeof FeedSchema>;

export const FeedListSchema = z.object({ object: z.literal("list"), has_more: z.boolean(), data: z.array(FeedSchema) });

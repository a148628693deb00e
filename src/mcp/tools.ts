import { z } from "zod";
import { JobCreateSchema, JobListSchema, JobSchema, UploadSourceSchema, UrlSourceSchema } from "../jobs/schema.ts";
import { ApiErrorEnvelopeSchema, type ApiClient, type ApiResult } from "./api-client.ts";
import { LocalFileSourceSchema, uploadLocalFile } from "./local-file.ts";

/** MCP tool annotations (hints to the host; spec 2025-06-18 ToolAnnotations). */
export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDef {
  name: "submit_job" | "get_job" | "list_jobs";
  description: string;
  input: z.ZodObject;
  /** What a successful call returns as structuredContent: exactly the API's resource. */
  output: z.ZodType;
  annotations: ToolAnnotations;
  run(client: ApiClient, args: Record<string, unknown>): Promise<ApiResult<unknown>>;
}

const SubmitJobInput = JobCreateSchema.extend({
  source: z.discriminatedUnion("type", [UrlSourceSchema, UploadSourceSchema, LocalFileSourceSchema]),
  idempotency_key: z
    .string()
    .min(8)
    .max(255)
    .optional()
    .describe(
      "Optional Idempotency-Key (8-255 characters). Resubmitting with the same key and body within 24 hours returns the original job instead of creating a new one; the same key with a different body is an idempotency_key_reused_with_different_body error.",
    ),
});

const GetJobInput = z.object({
  id: z.string().min(1).describe("Job id (prefix job_), as returned by submit_job or list_jobs."),
}).strict();

const ListJobsInput = z.object({
  limit: z.number().int().min(1).max(100).optional().describe("Page size, 1-100 (default 20)."),
  starting_after: z.string().min(1).optional().describe("Cursor: the id of the last job of the previous page."),
}).strict();

/**
 * Arguments of the read tools are checked here because they become a path or query string; a bad one
 * is the same `invalid_parameter` error the API gives for a malformed query parameter. submit_job's
 * body is not checked here: the API validates it and answers with the spec's own codes
 * (invalid_source_url, invalid_body, ...), so there is one validator and one set of codes.
 */
function checkArgs<S extends z.ZodObject>(schema: S, args: Record<string, unknown>): ApiResult<z.infer<S>> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  const param = issue.path.length > 0 ? issue.path.join(".") : issue.code === "unrecognized_keys" ? issue.keys.join(", ") : null;
  return {
    ok: false,
    error: { type: "invalid_request_error", code: "invalid_parameter", message: `${param ?? "arguments"}: ${issue.message}`, param, request_id: null },
  };
}

/** The path is this machine's business (checked here); everything else the API validates as usual. */
async function submitLocalFile(client: ApiClient, body: Record<string, unknown>, idempotencyKey: string | undefined): Promise<ApiResult<unknown>> {
  const checked = checkArgs(z.object({ source: LocalFileSourceSchema }), { source: body.source });
  if (!checked.ok) return checked;
  const upload = await uploadLocalFile(client, checked.value.source);
  return upload.ok ? client.submitJob({ ...body, source: upload.value }, idempotencyKey) : upload;
}

export const TOOLS: readonly ToolDef[] = [
  {
    name: "submit_job",
    description:
      "Submit a podcast or video episode to clipyard: a URL (video_url, youtube_url), an upload id, or a local_file path on the machine this MCP server runs on (the server uploads it first). The job runs asynchronously (sandbox keys: about 10-70 s; live: minutes) and produces ranked, captioned short clips (9:16 and 16:9 MP4), an optional vertical trailer, Markdown show notes, a guest share URL and a speaker-labelled transcript. Returns the queued Job; poll get_job with its id until status is complete or failed.",
    input: SubmitJobInput,
    output: JobSchema,
    annotations: { title: "Submit a clip job", readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (client, args) => {
      const { idempotency_key, ...body } = args;
      if (idempotency_key !== undefined && typeof idempotency_key !== "string") {
        return Promise.resolve({
          ok: false,
          error: { type: "invalid_request_error", code: "invalid_idempotency_key", message: "idempotency_key must be a string of 8-255 characters.", param: "idempotency_key", request_id: null },
        });
      }
      if ((body.source as { type?: unknown } | undefined)?.type !== "local_file") return client.submitJob(body as { source: unknown; options?: unknown }, idempotency_key);
      return submitLocalFile(client, body, idempotency_key);
    },
  },
  {
    name: "get_job",
    description:
      "Get one job by id: its status (queued, processing, complete, failed), progress while processing, and when complete the output (clips with rendered URLs, trailer, show notes, guest share URL, transcript); when failed, error.code and error.message.",
    input: GetJobInput,
    output: JobSchema,
    annotations: { title: "Get a job", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (client, args) => {
      const checked = checkArgs(GetJobInput, args);
      return checked.ok ? client.getJob(checked.value.id) : checked;
    },
  },
  {
    name: "list_jobs",
    description:
      "List the organisation's jobs, newest first, as a List envelope { object: list, has_more, data: Job[] }. Page with limit and starting_after (the id of the last job of the previous page).",
    input: ListJobsInput,
    output: JobListSchema,
    annotations: { title: "List jobs", readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (client, args) => {
      const checked = checkArgs(ListJobsInput, args);
      return checked.ok ? client.listJobs(checked.value) : checked;
    },
  },
];

const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

/** JSON Schema draft-07 (what the SDK's Ajv validates by default), without $schema so it can nest. */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: "draft-7", io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

/**
 * The tools/list entry. outputSchema admits the resource or the API's error envelope: hosts (the SDK's
 * own Client among them) validate structuredContent whenever it is present, error results included.
 */
export function describeTool(tool: ToolDef) {
  return {
    name: tool.name,
    title: tool.annotations.title,
    description: tool.description,
    inputSchema: { $schema: DRAFT_07, type: "object" as const, ...jsonSchema(tool.input, "input") },
    outputSchema: {
      $schema: DRAFT_07,
      type: "object" as const,
      anyOf: [jsonSchema(tool.output, "output"), jsonSchema(ApiErrorEnvelopeSchema, "output")],
    },
    annotations: tool.annotations,
  };
}

/** A CallToolResult: the JSON in text content (for hosts without structured output) and as structuredContent. */
export function toolResult(result: ApiResult<unknown>) {
  if (result.ok) {
    return { content: [{ type: "text" as const, text: JSON.stringify(result.value, null, 2) }], structuredContent: result.value as Record<string, unknown> };
  }
  const envelope = { error: result.error };
  const e = result.error;
  const where = [e.param ? `param ${e.param}` : null, e.request_id ? `request ${e.request_id}` : null].filter(Boolean).join(", ");
  return {
    isError: true,
    content: [{ type: "text" as const, text: `clipyard API error ${e.code}${where ? ` (${where})` : ""}: ${e.message}\n${JSON.stringify(envelope, null, 2)}` }],
    structuredContent: envelope,
  };
}

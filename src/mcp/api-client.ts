import { z } from "zod";
import { JobListSchema, JobSchema, type Job } from "../jobs/schema.ts";
import { UploadSchema, type UploadResource } from "../uploads/schema.ts";

/** The API's error envelope (spec §7), as the MCP server passes it on to the host. */
export const ApiErrorEnvelopeSchema = z.object({
  error: z.object({
    type: z.string().describe("error type, e.g. invalid_request_error"),
    code: z.string().describe("machine-readable code to branch on, e.g. invalid_source_url, not_found"),
    message: z.string(),
    param: z.string().nullable().describe("the offending field, where applicable"),
    request_id: z.string().nullable().describe("X-Request-Id of the failed API call; null when the API was not reached"),
  }),
});

export type ApiErrorEnvelope = z.infer<typeof ApiErrorEnvelopeSchema>;
export type JobList = z.infer<typeof JobListSchema>;
export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiErrorEnvelope["error"] };

/**
 * Codes only this client produces, for failures where the API gave no envelope of its own. They
 * reuse the API's `api_error` type so callers branch on them the same way.
 */
export const CLIENT_ERRORS = {
  api_unreachable: "the API could not be reached (connection refused, DNS, timeout)",
  unexpected_response: "the API answered with something that is not a valid JSON Job, List or error envelope",
} as const;

export interface JobCreateBody {
  source: unknown;
  options?: unknown;
}

export interface ApiClient {
  readonly baseUrl: string;
  submitJob(body: JobCreateBody, idempotencyKey?: string): Promise<ApiResult<Job>>;
  getJob(id: string): Promise<ApiResult<Job>>;
  listJobs(query: { limit?: number; starting_after?: string }): Promise<ApiResult<JobList>>;
  /** Streams a local file to POST /v1/uploads (extension) and returns the Upload. */
  /** Uploads a file by path or, so that nothing re-resolves a checked path, by open descriptor. */
  uploadFile(file: string | number, filename: string): Promise<ApiResult<UploadResource>>;
}

/** An episode can take minutes to send over a LAN; every other call keeps the short timeout. */
const UPLOAD_TIMEOUT_MS = 60 * 60 * 1000;

function clientError(code: keyof typeof CLIENT_ERRORS, message: string, requestId: string | null = null): ApiResult<never> {
  return { ok: false, error: { type: "api_error", code, message, param: null, request_id: requestId } };
}

/**
 * A thin fetch-based client for the jobs API. It validates every answer against the same zod schemas
 * the API serves, so what reaches the MCP host always matches the tools' declared output schemas.
 */
export function createApiClient(opts: { baseUrl: string; apiKey: string; timeoutMs?: number; fetch?: typeof fetch }): ApiClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, "");
  const doFetch = opts.fetch ?? fetch;
  const timeoutMs = opts.timeoutMs ?? 30_000;

  async function call<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    init: { body?: unknown; file?: Blob; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<ApiResult<T>> {
    const url = `${baseUrl}${path}`;
    let res: Response;
    try {
      res = await doFetch(url, {
        method,
        headers: {
          authorization: `Bearer ${opts.apiKey}`,
          accept: "application/json",
          ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
          ...(init.file !== undefined ? { "content-type": "application/octet-stream" } : {}),
          ...init.headers,
        },
        body: init.file ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
        signal: AbortSignal.timeout(init.timeoutMs ?? timeoutMs),
      });
    } catch (err) {
      return clientError("api_unreachable", `Could not reach the clipyard API at ${baseUrl}: ${err instanceof Error ? err.message : String(err)}`);
    }
    const requestId = res.headers.get("x-request-id");
    let json: unknown;
    try {
      json = await res.json();
    } catch {
      return clientError("unexpected_response", `${method} ${path} answered HTTP ${res.status} with a body that is not JSON.`, requestId);
    }
    if (!res.ok) {
      const envelope = ApiErrorEnvelopeSchema.safeParse(json);
      if (envelope.success) return { ok: false, error: envelope.data.error };
      return clientError("unexpected_response", `${method} ${path} answered HTTP ${res.status} without an error envelope.`, requestId);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join(".") || "(root)"}: ${issue.message}` : "schema mismatch";
      return clientError("unexpected_response", `${method} ${path} answered with a body that does not match the API schema (${where}).`, requestId);
    }
    return { ok: true, value: parsed.data };
  }

  return {
    baseUrl,
    submitJob: (body, idempotencyKey) =>
      call("POST", "/v1/jobs", JobSchema, { body, headers: idempotencyKey !== undefined ? { "idempotency-key": idempotencyKey } : {} }),
    getJob: (id) => call("GET", `/v1/jobs/${encodeURIComponent(id)}`, JobSchema),
    listJobs: (query) => {
      const params = new URLSearchParams();
      if (query.limit !== undefined) params.set("limit", String(query.limit));
      if (query.starting_after !== undefined) params.set("starting_after", query.starting_after);
      const qs = params.toString();
      return call("GET", `/v1/jobs${qs ? `?${qs}` : ""}`, JobListSchema);
    },
    // Bun.file is read from disk as the request streams, so the episode is never loaded whole.
    uploadFile: (file, filename) =>
      call("POST", `/v1/uploads?${new URLSearchParams({ filename })}`, UploadSchema, { file: typeof file === "number" ? Bun.file(file) : Bun.file(file), timeoutMs: UPLOAD_TIMEOUT_MS }),
  };
}

/**
 * The one error table: every error code the service emits, its type and its HTTP status (the spec's
 * vocabulary). API responses, job error objects, docs/api.md and the OpenAPI document all read from
 * here. The domain throws ApiError with a code; only src/api turns it into an HTTP response.
 */
export type ErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "rate_limit_error"
  | "idempotency_error"
  | "api_error"
  | "pipeline_error";

interface ErrorDef {
  type: ErrorType;
  /** HTTP status when returned by the API; null for codes that only appear on failed jobs. */
  status: number | null;
  description: string;
}

export const ERRORS = {
  missing_authorization: { type: "authentication_error", status: 401, description: "Authorization header absent" },
  invalid_api_key_format: { type: "authentication_error", status: 401, description: "key prefix is not svc_live_ or svc_test_, or the header is not `Bearer <key>`" },
  invalid_api_key: { type: "authentication_error", status: 401, description: "key not found" },
  api_key_revoked: { type: "authentication_error", status: 401, description: "key revoked" },
  api_key_environment_mismatch: { type: "authentication_error", status: 401, description: "key presented with the other environment's prefix" },
  invalid_json: { type: "invalid_request_error", status: 400, description: "body is not valid JSON" },
  invalid_body: { type: "invalid_request_error", status: 400, description: "body is not a JSON object, or a field is missing or of the wrong type (param names it)" },
  invalid_source_type: { type: "invalid_request_error", status: 400, description: "source.type not a supported value" },
  invalid_source_url: { type: "invalid_request_error", status: 400, description: "source.url malformed for the type" },
  invalid_upload: { type: "invalid_request_error", status: 400, description: "extension: source.upload_id is not an upload of this organisation and environment, has expired, or is not fully received (param source.upload_id)" },
  invalid_parameter: { type: "invalid_request_error", status: 400, description: "a query parameter is out of range or malformed (param names it)" },
  invalid_idempotency_key: { type: "invalid_request_error", status: 400, description: "Idempotency-Key is not 8-255 characters" },
  invalid_events: { type: "invalid_request_error", status: 400, description: "webhook events array empty or has unsupported values" },
  invalid_webhook_url: { type: "invalid_request_error", status: 400, description: "webhook url is not an allowed HTTPS URL (param url)" },
  invalid_feed_url: { type: "invalid_request_error", status: 400, description: "feed url is not an allowed HTTPS URL (param url)" },
  feed_already_registered: { type: "invalid_request_error", status: 409, description: "this feed url is already registered in the key's environment (param url)" },
  webhook_disabled: { type: "invalid_request_error", status: 409, description: "the webhook was deactivated after 10 consecutive failed deliveries; register it again" },
  no_job_for_test_event: { type: "invalid_request_error", status: 409, description: "the organisation has no job in the webhook's environment to derive a test event from" },
  insufficient_balance: { type: "invalid_request_error", status: 402, description: "a live job outside the free tier needs wallet balance for its price" },
  invalid_amount: { type: "invalid_request_error", status: 400, description: "wallet top-up amount outside 5-500 USD or not a whole number of cents (param amount)" },
  payment_provider_unavailable: { type: "invalid_request_error", status: 409, description: "the chosen top-up provider is not configured on this appliance" },
  invalid_signature: { type: "authentication_error", status: 400, description: "payment provider webhook signature missing or invalid" },
  not_found: { type: "invalid_request_error", status: 404, description: "resource or route does not exist for the organisation" },
  method_not_allowed: { type: "invalid_request_error", status: 405, description: "the path exists but not with this HTTP method" },
  request_header_too_large: { type: "invalid_request_error", status: 431, description: "request line and headers together larger than 16 KiB" },
  body_too_large: { type: "invalid_request_error", status: 413, description: "request body larger than the limit (1 MiB)" },
  job_not_complete: { type: "invalid_request_error", status: 409, description: "extension: a clip can be re-rendered only once its job is complete (param id)" },
  rerender_unavailable: { type: "invalid_request_error", status: 409, description: "extension: the job's checkpointed source and transcript are gone, so its clips cannot be re-rendered (param id)" },
  clip_limit_reached: { type: "invalid_request_error", status: 409, description: "extension: the job already has the most clips a producer may add (10); delete one first (param id)" },
  upload_offset_conflict: { type: "invalid_request_error", status: 409, description: "extension (tus): Upload-Offset is not where the upload stands; HEAD the upload and resume from its offset" },
  idempotency_key_reused_with_different_body: { type: "idempotency_error", status: 409, description: "same Idempotency-Key with a different body within 24 hours" },
  too_many_requests: { type: "rate_limit_error", status: 429, description: "per-key budget exhausted; see Retry-After" },
  upload_quota_exceeded: { type: "invalid_request_error", status: 507, description: "extension: the organisation's unfinished and kept uploads would pass CLIPYARD_UPLOAD_QUOTA_BYTES; finish, use or delete some" },
  insufficient_storage: { type: "api_error", status: 507, description: "extension: the appliance's data disk is down to its free-space reserve (CLIPYARD_DISK_RESERVE_BYTES); uploads and new jobs are refused until space is freed" },
  too_many_queued_renders: { type: "rate_limit_error", status: 429, description: "extension: the organisation already has CLIPYARD_MAX_QUEUED_RENDERS_PER_ORG re-renders queued or rendering in this environment; see Retry-After" },
  feed_limit_reached: { type: "invalid_request_error", status: 409, description: "extension: the organisation already has CLIPYARD_MAX_FEEDS_PER_ORG feeds registered (both environments); delete one first" },
  internal_error: { type: "api_error", status: 500, description: "unexpected server error" },
  // Codes that appear only as error.code of a failed job.
  youtube_ingestion_failed: { type: "invalid_request_error", status: null, description: "video download failed; job ends failed; no charge" },
  media_fetch_failed: { type: "invalid_request_error", status: null, description: "video_url download failed or was refused (size, duration, address, not an accepted media container, no audio); no charge" },
  analysis_failed: { type: "pipeline_error", status: null, description: "transcription or clip selection errored; no charge" },
  no_clips_to_render: { type: "pipeline_error", status: null, description: "zero clip candidates; no charge" },
  all_renders_failed: { type: "pipeline_error", status: null, description: "every approved clip render failed; no charge" },
  pipeline_stalled: { type: "pipeline_error", status: null, description: "no terminal state within 30 minutes; no charge" },
  transcription_failed: { type: "pipeline_error", status: null, description: "sandbox only: a source.url containing \"fail\"" },
} as const satisfies Record<string, ErrorDef>;

export type ErrorCode = keyof typeof ERRORS;
export type JobErrorCode = {
  [K in ErrorCode]: (typeof ERRORS)[K]["status"] extends null ? K : never;
}[ErrorCode];

/** An error the API answers with the envelope. Thrown anywhere below a route; rendered in one place. */
export class ApiError extends Error {
  readonly headers: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly param: string | null = null,
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.headers = headers;
  }
  get status(): number {
    return ERRORS[this.code].status ?? 500;
  }
  get type(): ErrorType {
    return ERRORS[this.code].type;
  }
}

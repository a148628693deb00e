import { z } from "zod";
import { ERRORS } from "../errors.ts";
import { FeedCreateSchema, FeedListSchema, FeedSchema } from "../feeds/schema.ts";
import { ClipCreateSchema, ClipRenderCreateSchema, ClipSchema, TranscriptCorrectionResultSchema, TranscriptCorrectionSchema, JobCreateSchema, JobListSchema, JobSchema } from "../jobs/schema.ts";
import { RawUploadQuerySchema, UploadSchema } from "../uploads/schema.ts";
import { WalletSchema } from "../billing/schema.ts";
import { VocabularyPutSchema, VocabularyResourceSchema } from "./routes/vocabulary.ts";
import { BrandPutSchema, BrandResourceSchema } from "./routes/brand.ts";

/** OpenAPI 3.1 document generated from the same zod schemas that validate requests. */
export function openApiDocument() {
  const json = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  const errorSchema = {
    type: "object",
    properties: {
      error: {
        type: "object",
        properties: {
          type: { type: "string" },
          code: { type: "string", enum: Object.keys(ERRORS) },
          message: { type: "string" },
          param: { type: ["string", "null"] },
          request_id: { type: "string" },
        },
        required: ["type", "code", "message", "param", "request_id"],
      },
    },
    required: ["error"],
  };
  const errorResponse = { description: "Error envelope", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
  return {
    openapi: "3.1.0",
    info: { title: "clipyard API", version: "1" },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { Job: json(JobSchema), JobCreate: json(JobCreateSchema), JobList: json(JobListSchema), Wallet: json(WalletSchema),
        Clip: json(ClipSchema),
        ClipRenderCreate: json(ClipRenderCreateSchema),
        ClipCreate: json(ClipCreateSchema),
        TranscriptCorrection: json(TranscriptCorrectionSchema),
        TranscriptCorrectionResult: json(TranscriptCorrectionResultSchema),
        Upload: json(UploadSchema),
        Feed: json(FeedSchema),
        FeedCreate: json(FeedCreateSchema),
        FeedList: json(FeedListSchema),
        Vocabulary: json(VocabularyResourceSchema),
        VocabularyPut: json(VocabularyPutSchema),
        Brand: json(BrandResourceSchema),
        BrandPut: json(BrandPutSchema),
        Error: errorSchema,
      },
    },
    security: [{ bearer: [] }],
    paths: {
      "/v1/jobs": {
        post: {
          summary: "Submit a job",
          parameters: [{ name: "Idempotency-Key", in: "header", schema: { type: "string", minLength: 8, maxLength: 255 } }],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/JobCreate" } } } },
          responses: { "202": { description: "Queued job", content: { "application/json": { schema: { $ref: "#/components/schemas/Job" } } } }, default: errorResponse },
        },
        get: {
          summary: "List jobs, newest first",
          parameters: [
            { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100, default: 20 } },
            { name: "starting_after", in: "query", schema: { type: "string" } },
          ],
          responses: { "200": { description: "List", content: { "application/json": { schema: { $ref: "#/components/schemas/JobList" } } } }, default: errorResponse },
        },
      },
      "/v1/vocabulary": {
        get: {
          summary: "Extension: the organisation's vocabulary (names and terms) in the key's world",
          responses: { "200": { description: "Vocabulary", content: { "application/json": { schema: { $ref: "#/components/schemas/Vocabulary" } } } }, default: errorResponse },
        },
        put: {
          summary: "Extension: replace the organisation's vocabulary in the key's world; merged with each live job's `options.vocabulary`",
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/VocabularyPut" } } } },
          responses: { "200": { description: "Vocabulary as stored", content: { "application/json": { schema: { $ref: "#/components/schemas/Vocabulary" } } } }, default: errorResponse },
        },
      },
      "/v1/brand": {
        get: {
          summary: "Extension: the organisation's brand kit (logo, colours, caption font) in the key's world",
          responses: { "200": { description: "Brand", content: { "application/json": { schema: { $ref: "#/components/schemas/Brand" } } } }, default: errorResponse },
        },
        put: {
          summary: "Extension: replace the organisation's brand kit in the key's world; later jobs (not `options.brand: false`) render their clips, trailer, audiogram cards and thumbnails with it",
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/BrandPut" } } } },
          responses: { "200": { description: "Brand as stored", content: { "application/json": { schema: { $ref: "#/components/schemas/Brand" } } } }, default: errorResponse },
        },
      },
      "/v1/brand/logo": {
        get: {
          summary: "Extension: the brand's stored logo as PNG (ETag: its SHA-256); not_found without one",
          responses: { "200": { description: "The logo", content: { "image/png": { schema: { type: "string", format: "binary" } } } }, default: errorResponse },
        },
      },
      "/v1/jobs/{id}": {
        get: {
          summary: "Get a job",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "Job", content: { "application/json": { schema: { $ref: "#/components/schemas/Job" } } } }, default: errorResponse },
        },
      },
      "/v1/jobs/{id}/transcript/corrections": {
        post: {
          summary:
            "Extension: correct a complete job's transcript: `replace` swaps whole words (case-insensitive) everywhere, `words` rewrites what was said between two times. The transcript, clip copy, show notes, caption sidecars and exports change at once; clips whose burned-in captions change (and the trailer) are re-rendered on the re-render queue. Never billed; a replay changes nothing.",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "Idempotency-Key", in: "header", schema: { type: "string", minLength: 8, maxLength: 255 } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/TranscriptCorrection" } } } },
          responses: { "202": { description: "What changed and which renders were queued", content: { "application/json": { schema: { $ref: "#/components/schemas/TranscriptCorrectionResult" } } } }, default: errorResponse },
        },
      },
      "/v1/jobs/{id}/clips": {
        post: {
          summary:
            "Extension: add a clip of your own to a complete job: bounds snapped to sentence edges, ranked after every other clip, origin editor, with posting copy and caption sidecars; rendered by the re-render worker; never billed; at most 10 per job. 202 with the new clip (its `render` queued, or complete in the sandbox); 200 with the existing clip when the same one was already added.",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "Idempotency-Key", in: "header", schema: { type: "string", minLength: 8, maxLength: 255 } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ClipCreate" } } } },
          responses: {
            "202": { description: "The new clip with its render state", content: { "application/json": { schema: { $ref: "#/components/schemas/Clip" } } } },
            "200": { description: "The clip already added with these bounds, style and formats", content: { "application/json": { schema: { $ref: "#/components/schemas/Clip" } } } },
            default: errorResponse,
          },
        },
      },
      "/v1/jobs/{id}/clips/{clip_id}": {
        delete: {
          summary: "Extension: remove a clip (the machine's or your own) from a complete job, and its files",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "clip_id", in: "path", required: true, schema: { type: "string" } },
          ],
          responses: {
            "200": {
              description: "Deleted",
              content: { "application/json": { schema: { type: "object", properties: { id: { type: "string" }, object: { type: "string", enum: ["clip"] }, deleted: { type: "boolean", enum: [true] } }, required: ["id", "object", "deleted"] } } },
            },
            default: errorResponse,
          },
        },
      },
      "/v1/jobs/{id}/clips/{clip_id}/renders": {
        post: {
          summary:
            "Extension: re-render one clip of a complete job with another caption style, bounds (snapped to sentence edges) or formats, without transcribing again; never billed. Answers the clip, its `render` queued (live) or complete (sandbox: nothing is rendered).",
          parameters: [
            { name: "id", in: "path", required: true, schema: { type: "string" } },
            { name: "clip_id", in: "path", required: true, schema: { type: "string" } },
            { name: "Idempotency-Key", in: "header", schema: { type: "string", minLength: 8, maxLength: 255 } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ClipRenderCreate" } } } },
          responses: { "202": { description: "The clip with its render state", content: { "application/json": { schema: { $ref: "#/components/schemas/Clip" } } } }, default: errorResponse },
        },
      },
      "/v1/uploads": {
        post: {
          summary:
            "Extension: upload media for a job. A tus 1.0 creation request (Tus-Resumable, Upload-Length, Upload-Metadata) answers 201 with Location; any other POST is the whole file as the body. Streamed to disk, up to CLIPYARD_MAX_MEDIA_BYTES.",
          parameters: [
            { name: "filename", in: "query", schema: (json(RawUploadQuerySchema) as { properties: Record<string, unknown> }).properties.filename },
            { name: "Tus-Resumable", in: "header", schema: { type: "string", enum: ["1.0.0"] } },
            { name: "Upload-Length", in: "header", schema: { type: "integer" } },
            { name: "Upload-Metadata", in: "header", schema: { type: "string" } },
          ],
          requestBody: { required: false, content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } },
          responses: { "201": { description: "Upload created", content: { "application/json": { schema: { $ref: "#/components/schemas/Upload" } } } }, default: errorResponse },
        },
      },
      "/v1/uploads/{id}": {
        get: {
          summary: "Extension: an upload of this organisation and environment",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { "200": { description: "Upload", content: { "application/json": { schema: { $ref: "#/components/schemas/Upload" } } } }, default: errorResponse },
        },
        head: { summary: "Extension (tus): Upload-Offset and Upload-Length, to resume", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "200": { description: "Offset in headers" }, default: errorResponse } },
        patch: {
          summary: "Extension (tus): the next chunk at Upload-Offset",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          requestBody: { required: true, content: { "application/offset+octet-stream": { schema: { type: "string", format: "binary" } } } },
          responses: { "204": { description: "Chunk stored; the new Upload-Offset in headers" }, default: errorResponse },
        },
        delete: { summary: "Extension (tus termination): delete the upload", parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }], responses: { "204": { description: "Deleted" }, default: errorResponse } },
      },
      "/v1/feeds": {
        post: {
          summary: "Register a podcast feed: each new episode's enclosure becomes a job (extension; see docs/api.md, Podcast feeds)",
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/FeedCreate" } } } },
          responses: { "201": { description: "Feed", content: { "application/json": { schema: { $ref: "#/components/schemas/Feed" } } } }, default: errorResponse },
        },
        get: {
          summary: "List the key's feeds, newest first (extension)",
          responses: { "200": { description: "List", content: { "application/json": { schema: { $ref: "#/components/schemas/FeedList" } } } }, default: errorResponse },
        },
      },
      "/v1/feeds/{id}": {
        delete: {
          summary: "Stop polling a feed; its jobs stay (extension)",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: {
            "200": {
              description: "Deletion marker",
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: { id: { type: "string" }, object: { const: "feed" }, deleted: { const: true } },
                    required: ["id", "object", "deleted"],
                  },
                },
              },
            },
            default: errorResponse,
          },
        },
      },
      "/v1/wallet": {
        get: {
          summary: "Wallet balance, holds, free jobs left and credit lots (extension; see docs/billing.md)",
          responses: { "200": { description: "Wallet", content: { "application/json": { schema: { $ref: "#/components/schemas/Wallet" } } } }, default: errorResponse },
        },
      },
    },
  };
}

import { z } from "zod";

/** The Upload resource (extension): what POST /v1/uploads and GET /v1/uploads/{id} return. */
export const UploadSchema = z.object({
  id: z.string().describe("upl_ prefix; pass as source.upload_id"),
  object: z.literal("upload"),
  status: z.enum(["receiving", "complete"]).describe("complete once every byte has arrived; only complete uploads can be submitted"),
  size: z.number().int().nullable().describe("total bytes (null while a tus upload defers its length)"),
  received_bytes: z.number().int().describe("bytes stored so far (the tus Upload-Offset)"),
  filename: z.string().nullable().describe("the file name the client gave (tus metadata filename, or ?filename=)"),
  created_at: z.string(),
  expires_at: z.string().describe("deleted after this unless a job submitted with it is still waiting to read it; each submission pushes it 24 hours out. Unfinished: 6 hours after its last bytes arrived"),
  livemode: z.boolean(),
});

export type UploadResource = z.infer<typeof UploadSchema>;

export const RawUploadQuerySchema = z
  .object({ filename: z.string().min(1).max(255).describe("the file's name, kept for the timeline export and the job's working copy").optional() })
  .strict();

import { z } from "zod";
import { EVENT_TYPES } from "../../webhooks/events.ts";
import { BoundedUrlSchema, MAX_URL_LENGTH } from "../../net/url-bounds.ts";

export const WebhookCreateSchema = z
  .object({
    url: BoundedUrlSchema.describe(`HTTPS endpoint, at most ${MAX_URL_LENGTH} characters (http and LAN addresses only where the operator allows them)`),
    events: z.array(z.enum(EVENT_TYPES)).min(1, `events must name at least one of ${EVENT_TYPES.join(", ")}`),
  })
  .strict();

export const PageQuerySchema = z
  .object({
    limit: z.string().regex(/^\d+$/, "must be an integer from 1 to 100").transform(Number).pipe(z.number().int().min(1).max(100)).optional(),
    starting_after: z.string().optional(),
  })
  .strict();

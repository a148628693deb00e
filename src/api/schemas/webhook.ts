import { z } from "zod";
import { EVENT_TYPES } from "../../webhooks/events.ts";

export const WebhookCreateSchema = z
  .object({
    url: z.string().describe("HTTPS endpoint (http and LAN addresses only where the operator allows them)"),
    events: z.array(z.enum(EVENT_TYPES)).min(1, "events must name at least one of job.completed, job.failed"),
  })
  .strict();

export const PageQuerySchema = z
  .object({
    limit: z.string().regex(/^\d+$/, "must be an integer from 1 to 100").transform(Number).pipe(z.number().int().min(1).max(100)).optional(),
    starting_after: z.string().optional(),
  })
  .strict();

import type { z } from "zod";
import { ApiError, type ErrorCode } from "./errors.ts";

type CodeFor = (param: string) => ErrorCode;

/** Dotted path of a zod issue; for unknown keys, the first unknown key itself. */
function paramOf(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys.length) path.push(issue.keys[0]!);
  return path.join(".");
}

function messageOf(issue: z.core.$ZodIssue, param: string): string {
  if (issue.code === "unrecognized_keys") return `Unknown field ${param}.`;
  if (issue.code === "invalid_type" && issue.input === undefined) return `${param} is required.`;
  return `${param || "body"}: ${issue.message}`;
}

/**
 * Parses with a zod schema and turns the first issue into the spec's error envelope, its code chosen
 * by the field it concerns (so one schema still yields invalid_source_type, invalid_option, ...).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, codeFor: CodeFor): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = paramOf(issue);
  throw new ApiError(codeFor(param), messageOf(issue, param), param || null);
}

import type { z } from "zod";
import { ApiError, type ErrorCode } from "./errors.ts";

type CodeFor = (param: string) => ErrorCode;

/** Dotted path of a zod issue; for unknown keys, the first unknown key itself. */
function paramOf(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  if (issue.code === "unrecognized_keys" && issue.keys.length) path.push(issue.keys[0]!);
  return path.join(".");
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  int: "an integer",
  boolean: "true or false",
  array: "an array",
  object: "an object",
};

/** What was sent instead, without echoing strings or structures (they may be huge or hold secrets). */
function sent(value: unknown): string {
  if (value === null || typeof value === "number" || typeof value === "boolean") return JSON.stringify(value);
  if (Array.isArray(value)) return "an array";
  return TYPE_NAMES[typeof value] ?? typeof value;
}

const sizeUnit: Record<string, string> = { string: " characters", array: " items" };

/**
 * Our wording for zod's default messages, used only where a schema gives none of its own: say what
 * is wrong with the value that was sent ("must be an integer, not 2.5"), never "is required" for a
 * field that is present.
 */
function describe(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      return `must be ${TYPE_NAMES[issue.expected] ?? issue.expected}, not ${sent(issue.input)}`;
    case "too_small":
      return `must be ${issue.inclusive === false ? "more than" : "at least"} ${issue.minimum}${sizeUnit[issue.origin] ?? ""}`;
    case "too_big":
      return `must be ${issue.inclusive === false ? "less than" : "at most"} ${issue.maximum}${sizeUnit[issue.origin] ?? ""}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "invalid_union": {
      // A discriminated union (the job source) names the values its discriminator takes.
      const options = (issue as { options?: unknown[] }).options;
      return Array.isArray(options) && options.length ? `must be one of ${options.map((v) => JSON.stringify(v)).join(", ")}` : undefined;
    }
    default:
      return undefined;
  }
}

function messageOf(issue: z.core.$ZodIssue, param: string, value: unknown): string {
  if (issue.code === "unrecognized_keys") return `Unknown field ${param}.`;
  if (issue.code === "invalid_type" && valueAt(value, issue.path) === undefined) return `${param} is required.`;
  return `${param || "body"}: ${issue.message}`;
}

/** The value the caller sent at a path (undefined when absent), to tell "missing" from "wrong type". */
function valueAt(value: unknown, path: PropertyKey[]): unknown {
  let v = value;
  for (const key of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Parses with a zod schema and turns the first issue into the spec's error envelope, its code chosen
 * by the field it concerns (so one schema still yields invalid_source_type, invalid_body, ...).
 */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, codeFor: CodeFor): z.infer<S> {
  const result = schema.safeParse(value, { error: describe });
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const param = paramOf(issue);
  throw new ApiError(codeFor(param), messageOf(issue, param, value), param || null);
}

/**
 * A known count or cast of speakers (job option `speakers`): a number forces the clustering to that
 * many voices; a list of names does too, and names them. Names go to voices by what the conversation
 * says first (speaker-names.ts), and the rest by order of first speech, the order a host usually opens in.
 */
import { z } from "zod";

export const MIN_SPEAKERS = 2;
export const MAX_SPEAKERS = 10;
export const MAX_SPEAKER_NAME_LENGTH = 60;

/** A name lands in captions, VTT voice spans and file text: no control characters or markup. */
export const NAME_CHARACTERS = /^[^\p{Cc}<>{}]+$/u;
export const NAME_CHARACTERS_MESSAGE = "must not contain control characters or <, >, {, }";

// Not trimmed by the schema, so the job echoes its options exactly as sent; castOf trims.
export const SpeakerNameSchema = z
  .string()
  .max(MAX_SPEAKER_NAME_LENGTH)
  .refine((n) => n.trim().length > 0, { message: "must not be blank" })
  .regex(NAME_CHARACTERS, { message: NAME_CHARACTERS_MESSAGE });

export const SpeakersOptionSchema = z
  .union(
    [
      z.number().int().min(MIN_SPEAKERS).max(MAX_SPEAKERS),
      z
        .array(SpeakerNameSchema)
        .min(MIN_SPEAKERS)
        .max(MAX_SPEAKERS)
        .refine((names) => new Set(names.map((n) => n.trim().toLowerCase())).size === names.length, { message: "must not name anyone twice" }),
    ],
    { error: (issue) => (issue.code === "invalid_union" ? `must be a number ${MIN_SPEAKERS}-${MAX_SPEAKERS} or a list of ${MIN_SPEAKERS}-${MAX_SPEAKERS} names` : undefined) },
  )
  .describe(
    `Extension: the people who talk, when known: their number (${MIN_SPEAKERS}-${MAX_SPEAKERS}) or their names (${MIN_SPEAKERS}-${MAX_SPEAKERS} strings, at most ${MAX_SPEAKER_NAME_LENGTH} characters each, used trimmed, no two alike). Default: counted from the audio, named from the conversation.`,
  );

export type SpeakersOption = z.infer<typeof SpeakersOptionSchema>;

export interface Cast {
  count: number;
  names?: string[];
}

export function castOf(option: SpeakersOption | undefined): Cast | undefined {
  if (option === undefined) return undefined;
  return typeof option === "number" ? { count: option } : { count: option.length, names: option.map((n) => n.trim()) };
}

/** `--speakers 3` or `--speakers "Ann, Bob"`: a number, or the names between commas (for the schema to check). */
export function speakersArg(value: string): number | string[] {
  return /^\s*\d+\s*$/.test(value) ? Number(value) : value.split(",").map((n) => n.trim());
}

/** A command line's --speakers, checked by the job option's schema; a string says what is wrong. */
export function speakersFromFlag(value: string): SpeakersOption | string {
  const raw = speakersArg(value);
  const parsed = SpeakersOptionSchema.safeParse(raw);
  return parsed.success ? parsed.data : `--speakers: ${parsed.error.issues[0]!.message}`;
}

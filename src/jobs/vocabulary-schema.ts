import { z } from "zod";
import { MAX_VOCABULARY_ENTRIES, MAX_VOCABULARY_ENTRY_LENGTH } from "../pipeline/transcribe/vocabulary.ts";

/** A show's vocabulary, per job (option `vocabulary`) and per organisation (PUT /v1/vocabulary): one schema for both. */
export const VocabularySchema = z
  .array(
    z
      .string()
      .max(MAX_VOCABULARY_ENTRY_LENGTH, `an entry holds at most ${MAX_VOCABULARY_ENTRY_LENGTH} characters`)
      .refine((s) => s.trim().length > 0, "an entry must not be empty")
      .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "an entry must not contain control characters"),
  )
  .max(MAX_VOCABULARY_ENTRIES, `at most ${MAX_VOCABULARY_ENTRIES} entries`)
  .describe(
    `Extension: the show's names and terms (hosts, guests, the show's name), at most ${MAX_VOCABULARY_ENTRIES} entries of 1-${MAX_VOCABULARY_ENTRY_LENGTH} characters. ` +
      "Given to the recogniser as a prompt; near-miss spellings in the transcript are corrected to them. Merged with the organisation's list (GET/PUT /v1/vocabulary).",
  );

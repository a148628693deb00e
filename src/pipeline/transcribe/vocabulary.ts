/**
 * A show's vocabulary: names and terms the recogniser should spell as the show does. The list is
 * given to the recogniser as a prompt (it biases decoding towards these spellings) and afterwards
 * near-miss spellings are corrected (near-miss.ts).
 */

/** The API's limits (docs/api.md): entries per list and characters per entry. */
export const MAX_VOCABULARY_ENTRIES = 100;
export const MAX_VOCABULARY_ENTRY_LENGTH = 60;

/**
 * Whisper's prompt holds at most 223 tokens (half its context); faster-whisper keeps the first ones
 * and whisper.cpp the last ones of a longer prompt. About 600 characters stay well inside it for
 * names (3-4 characters a token), and cutting here keeps the same entries, the first, on both engines.
 */
const MAX_PROMPT_CHARS = 600;

/** Entries trimmed, inner whitespace collapsed, empty ones and repeats (ignoring case) dropped; first spelling wins. */
export function normaliseVocabulary(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of entries) {
    const entry = raw.replace(/\s+/g, " ").trim();
    const key = entry.toLocaleLowerCase();
    if (!entry || seen.has(key)) continue;
    seen.add(key);
    out.push(entry);
  }
  return out;
}

/**
 * The job's own entries first, then the organisation's: where both spell a name, the job's spelling
 * wins, and the job's entries are the ones a long list keeps in the prompt.
 */
export function mergeVocabulary(job: readonly string[] | undefined, org: readonly string[] | undefined): string[] {
  return normaliseVocabulary([...(job ?? []), ...(org ?? [])]);
}

/** `"A, B"` from the command line: entries separated by commas or new lines. */
export function parseVocabularyList(text: string): string[] {
  return normaliseVocabulary(text.split(/[,\n]/));
}

/**
 * The text both recognisers are prompted with: the entries as a comma-separated list, as far as they
 * fit. Whisper continues the style of its prompt, so a plain list of correctly spelled names is what
 * biases it towards them without inventing a context the episode does not have.
 */
export function vocabularyPrompt(entries: readonly string[]): string | undefined {
  let prompt = "";
  for (const e of normaliseVocabulary(entries)) {
    const next = prompt ? `${prompt}, ${e}` : e;
    if (next.length + "Glossary: .".length > MAX_PROMPT_CHARS) break;
    prompt = next;
  }
  // "Glossary:" reads as a list of terms rather than speech to continue: with a bare list, tiny.en
  // stopped after 10 s of the phone call; with this, it heard the whole call and spelled both names.
  return prompt ? `Glossary: ${prompt}.` : undefined;
}

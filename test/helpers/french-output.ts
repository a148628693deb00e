/**
 * What the two French end-to-end tests (test/e2e/language-process.test.ts, language given;
 * language-detect.test.ts, language detected) hold alike of a `clipyard process` output folder: the
 * transcript says French and reads as French is written, the default recogniser made it, the clip's
 * captions are the transcript's words, and the notes are French with no English template text.
 * Returns the texts for each file's own checks of what was said.
 */
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export function expectFrenchOutput(out: string): { text: string; cueText: string; notes: string } {
  const transcript = JSON.parse(readFileSync(join(out, "transcript.json"), "utf8"));
  expect(transcript.language).toBe("fr");
  const text = transcript.segments.map((s: { text: string }) => s.text).join(" ");
  expect(text.toLowerCase()).not.toMatch(/\b(?:the|and|is|of|you)\b/);
  // Elisions are written as French writes them ("c'est", not "c 'est").
  expect(text).toMatch(/\b(?:[cdjlmnst]|qu)['’]\p{L}/iu);
  expect(text).not.toMatch(/\b(?:[cdjlmnst]|qu) ['’]\p{L}/iu);

  const job = JSON.parse(readFileSync(join(out, "job.json"), "utf8"));
  expect(job.engine.asr).toContain("whisper-base");
  const srt = readFileSync(join(out, job.clips[0].captions_srt_url), "utf8");
  // The clip's captions are the transcript's French words over its stretch.
  const cueText = srt.split("\n").filter((l) => l && !/^\d+$/.test(l) && !l.includes("-->")).join(" ");
  expect(cueText.length).toBeGreaterThan(0);
  for (const w of cueText.toLowerCase().match(/\p{L}+(?:['’]\p{L}+)*/gu)!) expect(text.toLowerCase()).toContain(w);

  const notes = readFileSync(join(out, "notes.md"), "utf8");
  expect(notes).toMatch(/^Dans cet épisode de \d+ minutes?, .+ (?:parlent|parle)\b/m);
  expect(notes).toContain("## Chapitres");
  expect(notes).not.toMatch(/\b(?:In this|episode|talk about|Key takeaways|Chapters|Notable quotes|Speakers|of speaking time|Speaker \d)\b/);
  return { text, cueText, notes };
}

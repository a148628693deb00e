/**
 * Speakers end to end on real audio with the real models: names from direct address (the bundled
 * sample's closing minute, where the host asks "Theo, … Where can people see the hives?" and the
 * guest answers, with no self-introduction in it), a cast from the job's `speakers` option, a forced
 * count, and the same speakers on every run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT_DIR } from "../../src/config.ts";
import { runTool } from "../../src/media/ffmpeg.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { SHARED_MEDIA, testShared } from "../helpers/shared.ts";

const SLOW = 180_000;
const work = mkdtempSync(join(tmpdir(), "clipyard-speakers-"));
const ending = join(work, "ending.wav");
afterAll(() => rmSync(work, { recursive: true, force: true }));

beforeAll(async () => {
  // From Theo's last long answer to the end: Nora speaks second here, so order of first speech alone would name them the wrong way round.
  await runTool("ffmpeg", ["-y", "-loglevel", "error", "-ss", "119.5", "-i", join(ROOT_DIR, "fixtures", "sample", "rooftop-hours.m4a"), "-ac", "1", "-ar", "16000", ending]);
});

const speakersOf = (t: { words: Array<{ speaker: string }> }) => new Set(t.words.map((w) => w.speaker));

describe("speakers", () => {
  test(
    "a name from direct address goes to the voice that answers, with its evidence; a cast follows that evidence",
    async () => {
      const t = await transcribeFile(ending);
      expect(speakersOf(t).size).toBe(2);
      const asker = t.segments.find((s) => /^Theo\b/.test(s.text))!.speaker;
      const theo = [...speakersOf(t)].find((s) => s !== asker)!;
      expect(t.speakerNames).toEqual({ [theo]: "Theo" });
      expect(t.speakerNameEvidence).toEqual([{ speaker: theo, name: "Theo", evidence: [expect.stringMatching(/^addressed by .* \("Theo, this was lovely\. Where can people see the hives\?"\) and answered at /)] }]);

      const cast = await transcribeFile(ending, { speakers: ["Nora Vance", "Theo Marsh"] });
      // Theo talks first in this minute; the address still names his voice, and the cast's other name goes to the other voice.
      const first = cast.segments[0]!.speaker;
      expect(cast.speakerNames?.[first]).toBe("Theo Marsh");
      const other = [...speakersOf(cast)].find((s) => s !== first)!;
      expect(cast.speakerNames?.[other]).toBe("Nora Vance");
      expect(cast.speakerNameEvidence?.find((e) => e.speaker === other)?.evidence[0]).toContain("speakers option");
    },
    SLOW,
  );

  testShared(
    "speakers: 3 gives exactly three speakers on a three-person meeting opening",
    async () => {
      const t = await transcribeFile(join(SHARED_MEDIA, "meeting_excerpt.wav"), { speakers: 3 });
      expect(speakersOf(t)).toEqual(new Set(["Speaker 1", "Speaker 2", "Speaker 3"]));
      expect(new Set(t.segments.map((s) => s.speaker)).size).toBe(3);
    },
    SLOW,
  );

  testShared(
    "the same recording gives the same words, speakers and turns on every run",
    async () => {
      const file = join(SHARED_MEDIA, "meeting_trn08.wav");
      const a = await transcribeFile(file);
      const b = await transcribeFile(file);
      expect(b.words).toEqual(a.words);
      expect(b.speakerTurns).toEqual(a.speakerTurns);
      expect(b.speakerActivity).toEqual(a.speakerActivity);
      expect(speakersOf(a).size).toBeGreaterThanOrEqual(2);
    },
    SLOW,
  );
});

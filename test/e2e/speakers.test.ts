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
  test(
    "a theme tune before and after the talk is not a speaker",
    async () => {
      // A tremolo chord with noise beats: the segmentation model calls it speech (without music-windows.ts
      // it was a third voice in the activity), but it never pauses the way speech does.
      const tune = join(work, "tune.wav");
      const talk = join(work, "talk.wav");
      const mixed = join(work, "tune-talk-tune.wav");
      const ff = (args: string[]) => runTool("ffmpeg", ["-y", "-loglevel", "error", ...args]);
      await ff([
        "-f", "lavfi", "-i", "aevalsrc='0.2*(sin(2*PI*220*t)+sin(2*PI*277*t)+sin(2*PI*330*t))*(0.75+0.25*sin(2*PI*6*t))':s=16000:d=12",
        "-f", "lavfi", "-i", "anoisesrc=c=pink:a=0.3:d=12:r=16000:seed=7",
        "-filter_complex", "[1]volume='if(lt(mod(t,0.5),0.05),1,0)':eval=frame[b];[0][b]amix=inputs=2:normalize=0,afade=t=out:st=10:d=2", tune,
      ]);
      await ff(["-i", join(ROOT_DIR, "fixtures", "sample", "rooftop-hours.m4a"), "-t", "40", "-ac", "1", "-ar", "16000", talk]);
      await ff(["-i", tune, "-i", talk, "-i", tune, "-filter_complex", "[0][1][2]concat=n=3:v=0:a=1", "-ac", "1", "-ar", "16000", mixed]);
      const t = await transcribeFile(mixed);
      expect(new Set(t.speakerActivity!.map((a) => a.speaker)).size).toBe(2);
      expect(speakersOf(t).size).toBe(2);
      // And while it plays nobody speaks (the talk is 12-52 s; a turn may end up to a window, 1.5 s, late).
      const during = (a: number, b: number) => t.speakerActivity!.filter((x) => x.start < b && x.end > a).map((x) => `${x.speaker} ${x.start}-${x.end}`);
      expect(during(0, 11.5)).toEqual([]);
      expect(during(53.5, 64)).toEqual([]);
      // Nor is the tune (where Silero hears it: the closing one) given to the recogniser, and the transcript says so.
      const cut = (t.warnings ?? []).filter((w) => w.startsWith("music, not transcribed: "));
      expect(cut).toHaveLength(1);
      const stretches = [...cut[0]!.matchAll(/(\d+\.\d)-(\d+\.\d) s/g)].map((m) => [Number(m[1]), Number(m[2])]);
      expect(stretches.length).toBeGreaterThan(0);
      for (const [a, b] of stretches) expect(b! <= 12.5 || a! >= 51.5).toBe(true);
      expect(t.words.filter((w) => w.end < 11 || w.start > 54)).toEqual([]);
    },
    SLOW,
  );
});

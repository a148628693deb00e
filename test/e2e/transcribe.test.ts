/**
 * End to end on real recordings with the real models (installed and verified by scripts/setup/asr.sh).
 * A missing model or runtime fails these tests with the error that says how to install it.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { joinWords } from "../../src/pipeline/highlights/sentences.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { normalizeWords, wordErrorRate } from "../../scripts/bench/asr-scoring.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { testShared } from "../helpers/shared.ts";

const MEDIA = SHARED_MEDIA;
const SLOW = 120_000;

// The phone call's speakers (counted, named, placed, turns on sentence ends) and the quiet far-field
// meeting's words are checked in diarize.test.ts, on the one transcription of each it makes.
describe("transcribeFile", () => {
  testShared(
    "jfk.wav: accurate words with sane timings",
    async () => {
      const progress: number[] = [];
      const t = await transcribeFile(join(MEDIA, "jfk.wav"), { onProgress: (f) => progress.push(f) });
      const ref = readFileSync(join(MEDIA, "jfk.ref.txt"), "utf8");
      const hyp = t.words.map((w) => w.word).join(" ");
      expect(wordErrorRate(ref, hyp).wer).toBeLessThan(0.12);
      expect(t.language).toBe("en");
      expect(t.words.length).toBeGreaterThan(15);
      for (let i = 0; i < t.words.length; i++) {
        const w = t.words[i]!;
        expect(w.start).toBeGreaterThanOrEqual(0);
        expect(w.end).toBeGreaterThanOrEqual(w.start);
        expect(w.end).toBeLessThanOrEqual(11.1);
        if (i) expect(w.start).toBeGreaterThanOrEqual(t.words[i - 1]!.start);
      }
      // "country" closes the quote in the last two seconds; "Americans" is spoken before 3 s.
      const americans = t.words.find((w) => /americans/i.test(w.word))!;
      expect(americans.start).toBeLessThan(3);
      expect(t.words[t.words.length - 1]!.end).toBeGreaterThan(9);
      expect(new Set(t.words.map((w) => w.speaker))).toEqual(new Set(["Speaker 1"]));
      expect(t.segments.map((s) => s.text).join(" ")).toBe(joinWords(t.words.map((w) => w.word)));
      expect(progress[progress.length - 1]).toBe(1);
      for (let i = 1; i < progress.length; i++) expect(progress[i]!).toBeGreaterThanOrEqual(progress[i - 1]!);
    },
    SLOW,
  );

  testShared(
    "any media ffmpeg reads: an MP4 with AAC audio",
    async () => {
      const t = await transcribeFile(join(MEDIA, "talking_head_a.mp4"));
      expect(t.words.length).toBeGreaterThan(3);
      expect(t.segments.length).toBeGreaterThan(0);
      expect(t.words.every((w) => w.end <= 8)).toBe(true);
    },
    SLOW,
  );

  testShared(
    "a quiet copy of the phone call transcribes to the same words",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "clipyard-quiet-"));
      const words = async (path: string) => (await transcribeFile(path, { diarize: false })).words.map((w) => w.word).join(" ");
      const quietCopy = async (volume: string) => {
        const path = join(dir, `quiet-${volume}.wav`);
        const made = Bun.spawnSync(["ffmpeg", "-v", "error", "-i", join(MEDIA, "two_speakers_call.wav"), "-af", `volume=${volume}`, "-c:a", "pcm_f32le", path]);
        expect(made.exitCode).toBe(0);
        return words(path);
      };
      const original = await words(join(MEDIA, "two_speakers_call.wav"));
      expect(normalizeWords(original).length).toBeGreaterThan(50);
      // 1/16 (-24.1 dB) scales every float exactly, so the level normalisation must give identical input.
      expect(normalizeWords(await quietCopy("0.0625"))).toEqual(normalizeWords(original));
      // At -25 dB, rounding flips the last bit of a few samples, and greedy decoding with the tiny model
      // turns on that differently from one CPU to the next (one word differed on an Intel Xeon; on an AMD
      // EPYC "so what kind of thing. Oh," was heard where the speaker says "so what can I say? Oh,").
      // So the quiet copy is judged as a listener would: against the human transcript, no worse than
      // the original by more than two words in 75.
      const ref = readFileSync(join(MEDIA, "two_speakers_call.ref.txt"), "utf8");
      const quiet = await quietCopy("-25dB");
      expect(normalizeWords(quiet).length).toBeGreaterThan(0.9 * normalizeWords(original).length);
      expect(wordErrorRate(ref, quiet).wer).toBeLessThanOrEqual(wordErrorRate(ref, original).wer + 2 / 75);
    },
    SLOW,
  );

  testShared("a multilingual model detects the language", async () => {
    const t = await transcribeFile(join(MEDIA, "jfk.wav"), { model: "whisper-base", diarize: false });
    expect(t.language).toBe("en");
    expect(t.engine).toContain("whisper-base");
    expect(wordErrorRate(readFileSync(join(MEDIA, "jfk.ref.txt"), "utf8"), t.words.map((w) => w.word).join(" ")).wer).toBeLessThan(0.12);
  }, SLOW);

  test("silence gives an empty transcript, not an error", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clipyard-silence-"));
    const path = join(dir, "silence.m4a");
    expect(Bun.spawnSync(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "anullsrc=r=44100:cl=stereo", "-t", "3", path]).exitCode).toBe(0);
    const t = await transcribeFile(path);
    expect(t.words).toEqual([]);
    expect(t.segments).toEqual([]);
  }, SLOW);

  test("a file that does not exist fails with a clear error", async () => {
    await expect(transcribeFile(join(MEDIA, "nope.wav"))).rejects.toThrow(/ffprobe could not read/);
  });
});

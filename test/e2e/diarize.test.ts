/**
 * Speaker labelling end to end on the shared real recordings, with the verified speaker-embedding and
 * segmentation models installed by scripts/setup/asr.sh.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { diarizationErrorRate, parseRttm, parseUem, turnSentenceStats } from "../../scripts/bench/asr-scoring.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { describeShared } from "../helpers/shared.ts";

const SLOW = 180_000;
const reference = (name: string) => parseRttm(readFileSync(join(SHARED_MEDIA, `${name}.rttm`), "utf8"));
const uem = (name: string) => parseUem(readFileSync(join(SHARED_MEDIA, `${name}.uem`), "utf8"));

describeShared("neural diarization", () => {
  test(
    "two_speakers_call: two speakers counted, words and who-spoke-when from CAM++ embeddings",
    async () => {
      const t = await transcribeFile(join(SHARED_MEDIA, "two_speakers_call.wav"));
      expect(t.engine).toContain("CAM++ speaker embeddings");
      expect(t.engine).toContain("segmentation-3.0");
      // No warning about the speaker models (the recogniser's least-sure stretches may be named: the
      // phone call's "Neither did I" is heard as "I need to design").
      expect((t.warnings ?? []).filter((w) => !w.startsWith("the recogniser was least sure"))).toEqual([]);
      expect(new Set(t.words.map((w) => w.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
      const d = diarizationErrorRate(reference("two_speakers_call"), t.speakerActivity!);
      expect(d.hypSpeakers).toBe(2);
      expect(d.der).toBeLessThan(0.2);
      // One numbering for words and timelines: the voice heard most over a speaker's words is that speaker.
      for (const timeline of [t.speakerActivity!, t.speakerTurns!]) {
        for (const speaker of ["Speaker 1", "Speaker 2"]) {
          const heard = new Map<string, number>();
          for (const w of t.words.filter((x) => x.speaker === speaker)) {
            for (const a of timeline) heard.set(a.speaker, (heard.get(a.speaker) ?? 0) + Math.max(0, Math.min(w.end, a.end) - Math.max(w.start, a.start)));
          }
          expect([...heard].sort((x, y) => y[1] - x[1])[0]![0]).toBe(speaker);
        }
      }
      // Named from the call itself ("This is Diane in New Jersey"), and placed: the turns' error rate
      // too, the hosts alternating, and speaker changes on sentence ends (before turn realignment 3 of
      // its 14 sentences were split).
      expect(Object.values(t.speakerNames ?? {}).sort()).toEqual(["Diane", "Sheila"]);
      expect(diarizationErrorRate(reference("two_speakers_call"), t.speakerTurns!).der).toBeLessThan(0.3);
      let changes = 0;
      for (let i = 1; i < t.segments.length; i++) if (t.segments[i]!.speaker !== t.segments[i - 1]!.speaker) changes++;
      expect(changes).toBeGreaterThanOrEqual(4);
      expect(turnSentenceStats(t.words).splitSentences).toBeLessThanOrEqual(1);
    },
    SLOW,
  );

  test(
    "meeting_trn02: one short interjection in 30 s of quiet far-field room noise (-51 dB mean) is one speaker, and its words are heard there",
    async () => {
      const t = await transcribeFile(join(SHARED_MEDIA, "meeting_trn02.wav"));
      const speakers = new Set(t.speakerActivity!.map((x) => x.speaker));
      expect(speakers.size).toBe(1);
      expect(diarizationErrorRate(reference("meeting_trn02"), t.speakerActivity!, uem("meeting_trn02")).der).toBeLessThan(0.5);
      // The recogniser still gives the words spoken, inside the reference's one stretch of speech (20.7-21.4 s).
      expect(t.words.length).toBeGreaterThan(0);
      const [turn] = reference("meeting_trn02");
      for (const w of t.words) {
        expect(w.start).toBeGreaterThan(turn!.start - 1);
        expect(w.end).toBeLessThan(turn!.end + 1);
      }
    },
    SLOW,
  );

  test(
    "meeting_excerpt: a far-field meeting opening gets several speakers and overlapping turns",
    async () => {
      const t = await transcribeFile(join(SHARED_MEDIA, "meeting_excerpt.wav"));
      const activity = t.speakerActivity!;
      expect(new Set(activity.map((x) => x.speaker)).size).toBeGreaterThanOrEqual(2);
      let overlap = 0;
      for (let s = 0.005; s < 30; s += 0.01) if (activity.filter((x) => x.start <= s && s < x.end).length > 1) overlap += 0.01;
      expect(overlap).toBeGreaterThan(0.5);
      // MFCC clustering scored 54.8% here (docs/benchmarks/speakers.md)
      expect(diarizationErrorRate(reference("meeting_excerpt"), activity, uem("meeting_excerpt")).der).toBeLessThan(0.5);
    },
    SLOW,
  );

  test(
    "meeting_trn07: a quiet voice only the segmentation model hears is recognised too",
    async () => {
      const t = await transcribeFile(join(SHARED_MEDIA, "meeting_trn07.wav"));
      // Silero hears nothing before 20 s; the reference has FEE087 at 15.6-18.4 s ("Okay, …") and the
      // segmentation model hears her at 15.6-16.2 s. Without the quiet-speech pass the first word is at 27 s.
      expect(t.words.some((w) => w.start < 17 && w.end > 15)).toBe(true);
      expect(t.words.length).toBeGreaterThan(9);
      // Every segment holds words, and the transcript scores under 80 % DER (82 % without this pass).
      for (const seg of t.segments) {
        const inside = t.words.filter((w) => w.start >= seg.start - 1e-6 && w.end <= seg.end + 1e-6);
        expect(inside.length).toBeGreaterThan(0);
      }
      expect(diarizationErrorRate(reference("meeting_trn07"), t.segments, uem("meeting_trn07")).der).toBeLessThan(0.8);
    },
    SLOW,
  );

  test(
    "meeting_trn09: a voice talked over keeps its segment under the other's, and the segments keep their documented shape",
    async () => {
      // One woman talks throughout while a man talks over her; whisper writes one stream of words.
      const t = await transcribeFile(join(SHARED_MEDIA, "meeting_trn09.wav"));
      const segs = t.segments;
      let overlap = 0;
      for (let i = 0; i < segs.length; i++) {
        for (let j = i + 1; j < segs.length; j++) {
          const [a, b] = [segs[i]!, segs[j]!];
          const shared = Math.max(0, Math.min(a.end, b.end) - Math.max(a.start, b.start));
          // One speaker's segments never overlap; two speakers' do where both talk.
          if (a.speaker === b.speaker) expect(shared).toBe(0);
          else overlap += shared;
        }
      }
      // Before segments ran on under the other's words there was none: each stopped at the next.
      expect(overlap).toBeGreaterThan(0.5);
      // The man's sentences said over her (14.2-18.2 s in the reference) are his: the voice that opens
      // the file ("Yeah, so we've moved over …"), not hers ("My view on this …"). Before they were hers.
      const speakerOf = (text: string) => t.words.find((w) => w.word.trim().toLowerCase().startsWith(text))?.speaker;
      const his = t.words[0]!.speaker;
      const hers = speakerOf("view");
      expect(hers).not.toBe(his);
      const interjection = t.words.filter((w) => w.start >= 14.3 && w.end <= 18.2);
      expect(interjection.length).toBeGreaterThan(4);
      expect(interjection.filter((w) => w.speaker === his).length).toBeGreaterThan(interjection.length / 2);
      // 28.7 % before this and 19.9 % after on the 2-core AMD EPYC VM.
      expect(diarizationErrorRate(reference("meeting_trn09"), t.segments, uem("meeting_trn09")).der).toBeLessThan(0.25);
      for (const [i, seg] of segs.entries()) {
        const own = t.words.filter((w) => w.speaker === seg.speaker && w.start >= seg.start - 1e-6 && w.end <= seg.end + 1e-6);
        expect(own.length).toBeGreaterThan(0);
        // In order of their starts; a start at most 1 s before the first word.
        if (i > 0) expect(seg.start).toBeGreaterThanOrEqual(segs[i - 1]!.start);
        expect(own[0]!.start - seg.start).toBeLessThanOrEqual(1 + 1e-6);
        // An end more than 2 s past the last word lies under another speaker's words: inside a
        // segment of theirs, between its first word and its last.
        if (seg.end > own.at(-1)!.end + 2 + 1e-6) {
          const under = segs.some((o) => {
            const theirs = t.words.filter((w) => w.speaker === o.speaker && w.start >= o.start - 1e-6 && w.end <= o.end + 1e-6);
            return o.speaker !== seg.speaker && theirs.length > 0 && theirs[0]!.start < seg.end && theirs.at(-1)!.end >= seg.end - 1e-6;
          });
          expect(under).toBe(true);
        }
      }
    },
    SLOW,
  );

  test(
    "the MFCC clustering still runs when asked for, and says what it is",
    async () => {
      const t = await transcribeFile(join(SHARED_MEDIA, "two_speakers_call.wav"), { diarizer: "mfcc" });
      expect(t.engine).toContain("MFCC speaker clustering");
      // It tells the two people apart. Its exact count on this 30 s call depends on the CPU: on a 2-core
      // AMD EPYC with AVX-512 the call's first word (0.75 s) is a third cluster of its own (19.3 % DER),
      // on the Intel Xeon VMs it is not; the speech bench reports the fallback's counts per file
      // (docs/benchmarks/speakers.md, 2026-11-27).
      const d = diarizationErrorRate(reference("two_speakers_call"), t.speakerActivity!);
      expect(d.hypSpeakers).toBeGreaterThanOrEqual(2);
      expect(d.hypSpeakers).toBeLessThanOrEqual(3);
      expect(d.der).toBeLessThan(0.3);
    },
    SLOW,
  );
});

import { describe, expect, test } from "bun:test";
import { checkClipEdges, checkCopy, incompleteSentence, isCompleteText, locateText } from "../../../../src/pipeline/highlights/editorial-check.ts";
import { selectClips } from "../../../../src/pipeline/highlights/select-clips.ts";
import { isSentenceEnd, isSentenceStart, MIN_SENTENCE_PAUSE, timingsShowNoPauses } from "../../../../src/pipeline/highlights/sentence-edges.ts";
import { joinWords, splitSentences } from "../../../../src/pipeline/highlights/sentences.ts";
import type { Word } from "../../../../src/pipeline/types.ts";
import { ASR_FIXTURES, asrTranscript } from "../../../helpers/asr-fixture.ts";

/** Words laid out with the given gap after each (seconds), one speaker unless a token says "B:". */
function timed(spec: Array<[string, number]>): Word[] {
  let t = 0;
  return spec.map(([tok, gap]) => {
    const speaker = tok.startsWith("B:") ? "B" : "A";
    const w = { word: tok.replace(/^B:/, ""), start: t, end: t + 0.3, speaker };
    t += 0.3 + gap;
    return w;
  });
}

describe("the sentence-end evidence rule", () => {
  test("terminal punctuation needs a pause, a speaker change or the end to count", () => {
    const ws = timed([["It", 0], ["worked.", 0], ["She", 0], ["left.", 0.4], ["Then", 0], ["rain,", 0], ["B:Really", 0], ["B:now", 0], ["done.", 0]]);
    expect(isSentenceEnd(ws, 1)).toBe(false); // full stop, no pause
    expect(isSentenceEnd(ws, 3)).toBe(true); // full stop + 0.4 s
    expect(isSentenceEnd(ws, 5)).toBe(false); // comma before a speaker change
    expect(isSentenceEnd(ws, 7)).toBe(false); // a speaker change without terminal punctuation
    expect(isSentenceEnd(ws, 8)).toBe(true); // end of the recording
    expect(isSentenceStart(ws, 0)).toBe(true);
    expect(isSentenceStart(ws, 2)).toBe(false);
    expect(isSentenceStart(ws, 4)).toBe(true);
  });

  test("on real whisper output a full stop with no pause after it is not a sentence end", () => {
    const t = asrTranscript("rooftop-hours");
    const i = t.words.findIndex((w, k) => w.word === "hive." && t.words[k + 1]?.word === "Since");
    expect(i).toBeGreaterThan(0);
    expect(t.words[i + 1]!.start - t.words[i]!.end).toBeLessThan(MIN_SENTENCE_PAUSE);
    expect(isSentenceEnd(t.words, i)).toBe(false);
    const s = splitSentences(t.words).find((x) => x.lastWord === i)!;
    expect(s.complete).toBe(false);
  });

  test("a recogniser that times no pauses at all (whisper.cpp): punctuation before a capital stands in for the pause", () => {
    // 60 words in 12 sentences, every word touching the next, as whisper.cpp's token timestamps come.
    const sentence = ["The", "bees", "came", "back", "early."];
    const gapless = timed(Array.from({ length: 12 }, () => sentence.map((w): [string, number] => [w, 0])).flat());
    expect(timingsShowNoPauses(gapless)).toBe(true);
    expect(isSentenceEnd(gapless, 4)).toBe(true);
    expect(isSentenceEnd(gapless, 3)).toBe(false);
    // The same words with real pauses after a quarter of them: the full rule, so a full stop with no
    // pause is still no sentence end.
    const timedPauses = timed(Array.from({ length: 12 }, (_, k) => sentence.map((w, j): [string, number] => [w, j === 4 && k % 2 === 0 ? 0.4 : 0])).flat());
    expect(timingsShowNoPauses(timedPauses)).toBe(false);
    expect(isSentenceEnd(timedPauses, 4)).toBe(true);
    expect(isSentenceEnd(timedPauses, 9)).toBe(false);
    // Real faster-whisper transcripts are never taken for gapless ones.
    for (const name of ASR_FIXTURES) expect(timingsShowNoPauses(asrTranscript(name).words)).toBe(false);
  });

  test("an abbreviation's full stop is not terminal punctuation", () => {
    const ws = timed([["Ask", 0], ["Dr.", 0.5], ["Smith", 0], ["now.", 0]]);
    expect(isSentenceEnd(ws, 1)).toBe(false);
    expect(isSentenceEnd(ws, 3)).toBe(true);
  });
});

describe("finished sentences (wink POS)", () => {
  test("the fragments from the issue are all rejected", () => {
    expect(incompleteSentence("On board was a crew of seven,")).toBe("no_terminal_punctuation");
    expect(incompleteSentence("Lift your eyes and look to the heavens,")).toBe("no_terminal_punctuation");
    expect(incompleteSentence("go straight for Aussie because he")).toBe("lower_case_start");
    expect(incompleteSentence("you're trying to convince somebody that 80s metal isn't just loud noises, what album would you recommend?")).toBe("lower_case_start");
    expect(incompleteSentence("I told you to trouble I feel like")).toBe("no_terminal_punctuation");
    expect(incompleteSentence("So I went to the…")).toBe("truncated");
  });

  test("a sentence never ends on a conjunction, article or a preposition that still wants its object", () => {
    expect(incompleteSentence("We bought a jar and.")).toBe("open_end");
    expect(incompleteSentence("On board was a crew of.")).toBe("open_end");
    expect(incompleteSentence("I kept bees on the.")).toBe("open_end");
    // A preposition stranded after its verb, a phrasal particle and a question are finished.
    expect(incompleteSentence("Since one colony alone gives you nothing to compare against.")).toBeNull();
    expect(incompleteSentence("Just look it up.")).toBeNull();
    expect(incompleteSentence("Where is she from?")).toBeNull();
  });

  test("statements need a verb; complete copy is every sentence complete", () => {
    expect(incompleteSentence("Free things.")).toBe("no_verb");
    expect(incompleteSentence("Really?")).toBeNull();
    expect(isCompleteText("It started with a mistake. I bought a jar of local honey.")).toBe(true);
    expect(isCompleteText("It started with a mistake. and then")).toBe(false);
  });
});

describe("token joins", () => {
  test("sub-word pieces whisper splits off are joined without a space", () => {
    expect(joinWords(["nine", "o", "'clock"])).toBe("nine o'clock");
    expect(joinWords(["kept", "3B", "-hives."])).toBe("kept 3B-hives.");
    expect(joinWords(["an", "age", "-old", "question"])).toBe("an age-old question");
    expect(joinWords(["with", "60", ",000", "bees"])).toBe("with 60,000 bees");
    expect(joinWords(["100", "%", "sure"])).toBe("100% sure");
    // A dash between words stays a dash.
    expect(joinWords(["well", "-", "no"])).toBe("well- no");
  });

  test("real transcripts read without split tokens", () => {
    const text = splitSentences(asrTranscript("rooftop-hours").words)
      .map((s) => s.text)
      .join(" ");
    expect(text).toContain("3B-hives");
    expect(text).toContain("60,000 bees");
    expect(text).toContain("co-host.");
    expect(text).not.toMatch(/\s-\p{L}|\d ,\d/u);
  });
});

describe("copy location", () => {
  test("finds verbatim copy whatever the token joins, and refuses paraphrase", () => {
    const t = asrTranscript("rooftop-hours");
    const span = locateText(t.words, "For the last two years I have kept 3B-hives on the roof of an apartment lock, right on the uppermost top.");
    expect(span).not.toBeNull();
    expect(t.words[span!.first]!.word).toBe("For");
    expect(locateText(t.words, "For the last three years I have kept bees.")).toBeNull();
    expect(checkCopy(t.words, "It started with a mistake.").ok).toBe(true);
    expect(checkCopy(t.words, "Since one colony alone gives you nothing to compare against.").problems).toContain("starts mid-sentence");
  });
});

describe("clips on real transcripts start and end on evidenced sentence edges", () => {
  for (const name of ASR_FIXTURES) {
    test(name, () => {
      const t = asrTranscript(name);
      let clips: ReturnType<typeof selectClips> = [];
      try {
        clips = selectClips(t, { count: 5 });
      } catch (e) {
        expect((e as Error).name).toBe("NoClipsError");
      }
      for (const c of clips) {
        const check = checkClipEdges(t.words, c.start_time, c.end_time);
        expect({ clip: c.transcript_text, problems: check.problems }).toEqual({ clip: c.transcript_text, problems: [] });
      }
    });
  }

  test("the rooftop episode yields clips (the rule does not simply refuse everything)", () => {
    expect(selectClips(asrTranscript("rooftop-hours"), { count: 5 }).length).toBeGreaterThanOrEqual(3);
  });
});

import { expect, test } from "bun:test";
import { laughterSpans, laughterWords, withoutLaughingVoices } from "../../../../src/pipeline/transcribe/laughter-words.ts";
import type { Word } from "../../../../src/pipeline/types.ts";

/** Words of one text, 0.3 s each from `start`, all given to `speaker`. */
const said = (speaker: string, start: number, text: string): Word[] => text.split(" ").map((word, i) => ({ word, start: start + 0.3 * i, end: start + 0.3 * i + 0.25, speaker }));
const marks = (text: string) => laughterWords(text.split(" ").map((word) => ({ word })));

test("whisper's ways of writing a laugh are laughter", () => {
  // As whisper-base wrote the laughs of scripts/bench/laughter.ts.
  expect(marks("Ha ha ha!")).toEqual([true, true, true]);
  expect(marks("Hahaha!")).toEqual([true]);
  expect(marks("hehehehehehe.")).toEqual([true]);
  expect(marks("HAHAHAHAHAHA")).toEqual([true]);
  expect(marks("Hee hee hee hee.")).toEqual([true, true, true, true]);
  expect(marks("Tee hee hee")).toEqual([true, true, true]);
  expect(marks("(laughs) [Laughter] (laughing)")).toEqual([true, true, true]);
  expect(marks("Ha ha. That's good.")).toEqual([true, true, false, false]);
  // Other languages' laughs, as one token.
  expect(marks("¡Jajaja! 哈哈哈 ははは 하하하 ㅋㅋㅋ")).toEqual([true, true, true, true, true]);
});

test("words made of the same sounds are not laughter", () => {
  expect(marks("Hi, hi.")).toEqual([false, false]);
  expect(marks("He, he said so.")).toEqual([false, false, false, false]);
  expect(marks("Ha! Got you.")).toEqual([false, false, false]);
  expect(marks("Hello, how are you?")).toEqual([false, false, false, false]);
  expect(marks("Ho ho")).toEqual([false, false]);
  expect(marks("[Music] (applause) Heh")).toEqual([false, false, false]);
  // German "yes, yes", a name, a Chinese word with one laugh character.
  expect(marks("Ja, ja. JoJo 哈密 Haji Hajime")).toEqual([false, false, false, false, false, false]);
});

test("a voice that only laughs leaves the transcript: its laugh goes to whoever talks nearest", () => {
  const words = [...said("Speaker 1", 0, "So how did the bees get out?"), ...said("Speaker 2", 2.5, "Ha ha ha!"), ...said("Speaker 3", 4, "Nobody closed the lid.")];
  const out = withoutLaughingVoices(words);
  expect(new Set(out.map((w) => w.speaker))).toEqual(new Set(["Speaker 1", "Speaker 3"]));
  // "Ha" (2.5 s) and "ha" (2.8 s) are nearer "out?" (1.8 s), the last "ha!" (3.1 s) is nearer "Nobody" (4.0 s).
  expect(out.slice(7, 10).map((w) => w.speaker)).toEqual(["Speaker 1", "Speaker 1", "Speaker 3"]);
  // Words, times and the talkers' labels are untouched.
  expect(out.map((w) => [w.word, w.start, w.end])).toEqual(words.map((w) => [w.word, w.start, w.end]));
  expect(out.filter((w) => w.speaker === "Speaker 3").map((w) => w.word)).toEqual(["ha!", "Nobody", "closed", "the", "lid."]);
});

test("someone who laughs and says a word is a person; a file of laughter is left as it is", () => {
  const words = [...said("Speaker 1", 0, "That was the plan."), ...said("Speaker 2", 2, "Ha ha. Right.")];
  expect(withoutLaughingVoices(words)).toEqual(words);
  const laughs = [...said("Speaker 1", 0, "Hahaha!"), ...said("Speaker 2", 2, "Hee hee hee.")];
  expect(withoutLaughingVoices(laughs)).toEqual(laughs);
  // An annotation is not talk either: a voice with only "(laughs)" goes too.
  const annotated = [...said("Speaker 1", 0, "It fell off the roof."), ...said("Speaker 2", 1.5, "(laughs)")];
  expect(new Set(withoutLaughingVoices(annotated).map((w) => w.speaker))).toEqual(new Set(["Speaker 1"]));
});

test("laughter spans for the clip ranker: a laugh's words under a second apart are one span", () => {
  const words = [...said("Speaker 1", 0, "It fell off the roof."), ...said("Speaker 2", 1.6, "Ha ha ha!"), ...said("Speaker 1", 3, "Then the bus came."), ...said("Speaker 2", 4.5, "Hahaha!")];
  expect(laughterSpans(words)).toEqual([
    { start: 1.6, end: 2.45 },
    { start: 4.5, end: 4.75 },
  ]);
  expect(laughterSpans(said("Speaker 1", 0, "No laughing matter."))).toEqual([]);
});

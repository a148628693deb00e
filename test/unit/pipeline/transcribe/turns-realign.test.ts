import { describe, expect, test } from "bun:test";
import { realignTurns } from "../../../../src/pipeline/transcribe/turns-realign.ts";
import type { Word } from "../../../../src/pipeline/types.ts";

/**
 * Words with constructed timings: each 0.3 s long, 0.05 s apart, and `pause` seconds more after any
 * word written with a trailing "|". Turns are [speaker, text] pairs.
 */
function spoken(turns: Array<[string, string]>, pause = 0.4): Word[] {
  const out: Word[] = [];
  let t = 0;
  for (const [speaker, text] of turns) {
    for (const raw of text.split(/\s+/).filter(Boolean)) {
      const word = raw.replace(/\|$/, "");
      out.push({ word, start: t, end: t + 0.3, speaker });
      t += 0.35 + (raw.endsWith("|") ? pause : 0);
    }
  }
  return out;
}

/** The words at `indices` lengthened to `seconds` each, later words shifted to keep their gaps. */
function stretch(words: Word[], indices: number[], seconds: number): Word[] {
  let shift = 0;
  return words.map((w, i) => {
    const start = w.start + shift;
    if (indices.includes(i)) shift += seconds - (w.end - w.start);
    return { ...w, start, end: w.end + shift };
  });
}

/** The turns as "speaker: text" lines, for readable expectations. */
function turnsOf(words: Word[]): string[] {
  const out: string[] = [];
  let cur: Word[] = [];
  for (const w of [...words, undefined]) {
    if (cur.length && (!w || w.speaker !== cur[0]!.speaker)) {
      out.push(`${cur[0]!.speaker}: ${cur.map((x) => x.word).join(" ")}`);
      cur = [];
    }
    if (w) cur.push(w);
  }
  return out;
}

describe("realignTurns", () => {
  test("a change one word early (the next speaker given the last word) moves onto the sentence end", () => {
    const words = spoken([
      ["A", "Oh, I'm originally from Chicago also.| I'm in New Jersey now"],
      ["B", "though.| Well, there isn't that much difference."],
    ]);
    expect(turnsOf(realignTurns(words))).toEqual([
      "A: Oh, I'm originally from Chicago also. I'm in New Jersey now though.",
      "B: Well, there isn't that much difference.",
    ]);
  });

  test("a change one word late (the next speaker's first word kept) moves onto the sentence end", () => {
    const words = spoken([
      ["A", "This is Diane in New Jersey.| And"],
      ["B", "I'm Sheila in Texas, originally from Chicago."],
    ]);
    expect(turnsOf(realignTurns(words))).toEqual(["A: This is Diane in New Jersey.", "B: And I'm Sheila in Texas, originally from Chicago."]);
  });

  test("of two sentence ends either side, the one followed by a pause wins", () => {
    const words = spoken([
      ["A", "That was really some great performance. Thank"],
      ["B", "you.| Jack, what's your favourite album?"],
    ]);
    expect(turnsOf(realignTurns(words))).toEqual(["A: That was really some great performance. Thank you.", "B: Jack, what's your favourite album?"]);
    const other = spoken([
      ["A", "That was really some great performance.| Thank"],
      ["B", "you. Jack, what's your favourite album?"],
    ]);
    expect(turnsOf(realignTurns(other))).toEqual(["A: That was really some great performance.", "B: Thank you. Jack, what's your favourite album?"]);
  });

  test("a one-word turn inside a sentence is merged; a one-word sentence stays a turn", () => {
    const stray = spoken([
      ["A", "So what album would"],
      ["B", "you"],
      ["A", "recommend to people who like jazz?"],
    ]);
    expect(turnsOf(realignTurns(stray))).toEqual(["A: So what album would you recommend to people who like jazz?"]);

    const greetings = spoken([
      ["A", "Hello?|"],
      ["B", "Hello?|"],
      ["A", "Oh, hello.| I didn't know you were there."],
    ]);
    expect(realignTurns(greetings)).toEqual(greetings);
  });

  test("a short turn that is part of a sentence joins the speaker of that sentence", () => {
    // The diarizer split Diane's second sentence (as on the repeated phone call). Words alone cannot
    // say whose it is; the shorter side yields, and the sentence stays whole.
    const words = spoken([
      ["A", "Oh, I'm originally from Chicago also.|"],
      ["B", "I'm in New Jersey"],
      ["A", "now though.|"],
      ["C", "Well, there isn't that much difference."],
    ]);
    expect(turnsOf(realignTurns(words))).toEqual([
      "A: Oh, I'm originally from Chicago also.",
      "B: I'm in New Jersey now though.",
      "C: Well, there isn't that much difference.",
    ]);
    const three = spoken([
      ["A", "Oh, I'm originally from Chicago also.|"],
      ["B", "I'm in Jersey"],
      ["A", "now though, you know.|"],
      ["C", "Well, there isn't that much difference."],
    ]);
    expect(turnsOf(realignTurns(three))[0]).toBe("A: Oh, I'm originally from Chicago also. I'm in Jersey now though, you know.");
    // A short turn that starts a sentence finished by the next speaker goes with that speaker.
    const start = spoken([
      ["A", "They all call me a Yankee down here.|"],
      ["B", "So, I"],
      ["C", "don't hear that in New Jersey now."],
    ]);
    expect(turnsOf(realignTurns(start))).toEqual(["A: They all call me a Yankee down here.", "C: So, I don't hear that in New Jersey now."]);
    // Between two turns of one speaker, a word that starts their next sentence is theirs: whisper placed
    // "The" over a laugh in the pause, whose voice the diarizer gave it (scripts/bench/laughter.ts).
    const opening = spoken([
      ["A", "Welcome back to Rooftop Hours.|"],
      ["B", "The"],
      ["A", "show about small projects."],
    ]);
    expect(turnsOf(realignTurns(opening))).toEqual(["A: Welcome back to Rooftop Hours. The show about small projects."]);
    // ...but a whole sentence there is someone's reply.
    const reply = spoken([
      ["A", "Welcome back to Rooftop Hours.|"],
      ["B", "Thanks.|"],
      ["A", "The show about small projects."],
    ]);
    expect(turnsOf(realignTurns(reply))).toEqual(["A: Welcome back to Rooftop Hours.", "B: Thanks.", "A: The show about small projects."]);
    // A capital after an unpunctuated word is whisper starting a sentence: an interjection stays.
    const interjection = spoken([
      ["A", "And what I wanted to say was"],
      ["B", "Right, sure"],
      ["A", "that we should all go."],
    ]);
    // ...and, since A carries on in lower case after it, A's turn is marked as cut off.
    expect(turnsOf(realignTurns(interjection))).toEqual(["A: And what I wanted to say was—", "B: Right, sure", "A: that we should all go."]);
  });

  test("a true interruption is kept: the text starts a new sentence at the change, and is punctuated as cut off", () => {
    const words = spoken([
      ["A", "And then we could just move the"],
      ["B", "No.| Wait, that would break everything."],
    ]);
    const out = realignTurns(words);
    expect(turnsOf(out)).toEqual(["A: And then we could just move the—", "B: No. Wait, that would break everything."]);
    // Only the word's text changes: its timing and every other word stay as they were.
    expect(out.map(({ word, ...w }) => w)).toEqual(words.map(({ word, ...w }) => w));
    expect(out.filter((w, i) => w.word !== words[i]!.word).map((w) => w.word)).toEqual(["the—"]);
    // A word that could end a sentence is cut off when the next speaker starts before it ends.
    const over = spoken([
      ["A", "And then we could just move the whole"],
      ["B", "No.| Wait, that would break everything."],
    ]);
    over[7] = { ...over[7]!, end: over[8]!.start + 0.1 };
    expect(turnsOf(realignTurns(over))[0]).toBe("A: And then we could just move the whole—");
  });

  test("a turn whisper left unpunctuated before a new sentence gets a full stop", () => {
    const words = spoken([
      ["A", "I'm in New Jersey now though|"],
      ["B", "Well, there isn't that much difference."],
    ]);
    expect(turnsOf(realignTurns(words))).toEqual(["A: I'm in New Jersey now though.", "B: Well, there isn't that much difference."]);
    // A comma whisper left at the turn's end becomes the stop.
    const comma = spoken([
      ["A", "I'm in New Jersey now though,|"],
      ["B", "Well, there isn't that much difference."],
    ]);
    expect(turnsOf(realignTurns(comma))[0]).toBe("A: I'm in New Jersey now though.");
    // A change inside running text (lower case after it) is not punctuated: nothing says a sentence ended.
    const running = spoken([
      ["A", "This is Diane in New Jersey and I'm very"],
      ["B", "glad to be here and I'm Sheila from Texas originally"],
    ]);
    const slow = stretch(running, [8, 9, 10, 11, 12], 0.6);
    expect(realignTurns(slow)).toEqual(slow);
  });

  test("a change moves across a long pause onto the sentence end before it: the pause is not speech moved", () => {
    // "Did you guys" follows 5 s of silence and starts the sentence B finishes.
    const words = spoken(
      [
        ["A", "We talked about it yesterday.| Yeah.| Did you guys"],
        ["B", "actually have some sort of interaction on it?"],
      ],
      0.2,
    );
    const paused = words.map((w, i) => (i >= 6 ? { ...w, start: w.start + 5, end: w.end + 5 } : w));
    expect(turnsOf(realignTurns(paused))).toEqual(["A: We talked about it yesterday. Yeah.", "B: Did you guys actually have some sort of interaction on it?"]);
    // Spoken slowly (1.2 s for the three words), the change stays: that much speech is evidence.
    const slow = stretch(paused, [6, 7, 8], 0.4);
    expect(realignTurns(slow)).toEqual(slow);
  });


  test("a short turn seconds away from the next speaker's sentence stays a turn, closed and the next one capitalised", () => {
    // Whisper ran "Okay," into another person's question 4 s later (as on meeting_excerpt).
    const words = spoken([
      ["A", "Okay,|"],
      ["B", "does anyone want to see the feedback?"],
    ], 4);
    expect(turnsOf(realignTurns(words))).toEqual(["A: Okay.", "B: Does anyone want to see the feedback?"]);
    // A word already closed keeps its mark; only the next turn's capital is added.
    const closed = spoken([
      ["A", "etc.|"],
      ["B", "so that is settled."],
    ], 4);
    expect(turnsOf(realignTurns(closed))).toEqual(["A: etc.", "B: So that is settled."]);
    // Under the pause limit the short turn joins the sentence it starts, as before.
    const close = spoken([
      ["A", "Okay,|"],
      ["B", "does anyone want to see the feedback?"],
    ], 1.5);
    expect(turnsOf(realignTurns(close))).toEqual(["B: Okay, does anyone want to see the feedback?"]);
    // A change across a long pause inside running text that is not a short turn is closed too.
    const long = spoken([
      ["A", "we had a long problem with the timings and|"],
      ["B", "the relative time did not correspond."],
    ], 3);
    expect(turnsOf(realignTurns(long))).toEqual(["A: we had a long problem with the timings and—", "B: The relative time did not correspond."]);
    // The stop is the script's own: 。 after Japanese, । after Hindi.
    const ja = spoken([["A", "わかり ました|"], ["B", "では 始め ましょう。"]], 3);
    expect(turnsOf(realignTurns(ja))).toEqual(["A: わかり ました。", "B: では 始め ましょう。"]);
    const hi = spoken([["A", "ठीक है|"], ["B", "चलिए शुरू करते हैं।"]], 3);
    expect(turnsOf(realignTurns(hi))).toEqual(["A: ठीक है।", "B: चलिए शुरू करते हैं।"]);
  });
  test("a capital that continues a name is not a new sentence", () => {
    // "New | Jersey.": the change one word early moves onto the sentence end despite the capital.
    const words = spoken([
      ["A", "Hi, this is Diane in New"],
      ["B", "Jersey.| And I'm Sheila in Texas, originally from Chicago."],
    ]);
    expect(turnsOf(realignTurns(words))).toEqual(["A: Hi, this is Diane in New Jersey.", "B: And I'm Sheila in Texas, originally from Chicago."]);
    // "in | Texas" likewise; but a word that opens sentences after a name ("Jersey | Well,") is a new sentence.
    const opener = spoken([
      ["A", "Oh, I'm originally from Chicago also.| I'm in New Jersey| Well,"],
      ["B", "there isn't that much difference."],
    ]);
    expect(turnsOf(realignTurns(opener))).toEqual(["A: Oh, I'm originally from Chicago also. I'm in New Jersey.", "B: Well, there isn't that much difference."]);
  });

  test("a true interruption is kept: more than a second of the other's speech", () => {
    const words = spoken([
      ["A", "So which album would you"],
      ["B", "really recommend?| I'd say the first one."],
    ]);
    // The two words the diarizer gave B last 0.65 s: too little to split the sentence for.
    expect(turnsOf(realignTurns(words))).toEqual(["A: So which album would you really recommend?", "B: I'd say the first one."]);
    // Spoken slowly, 1.25 s of B's speech: B cut in.
    const slow = stretch(words, [5, 6], 0.6);
    expect(realignTurns(slow)).toEqual(slow);
    // The diarizer's own turns outweigh the word labels: here they say A spoke those words.
    const turns = [{ speaker: "A", start: 0, end: slow[6]!.end }, { speaker: "B", start: slow[7]!.start, end: 99 }];
    expect(turnsOf(realignTurns(slow, { turns }))[0]).toBe("A: So which album would you really recommend?");
  });

  test("changes at sentence ends and single-speaker transcripts are left alone", () => {
    const words = spoken([
      ["A", "Neither did I.|"],
      ["B", "Okay, then I thought you know, I heard a beep."],
    ]);
    expect(realignTurns(words)).toEqual(words);
    const one = spoken([["A", "Just me talking, no one else"]]);
    expect(realignTurns(one)).toEqual(one);
    expect(realignTurns([])).toEqual([]);
  });
});

import { expect, test } from "bun:test";
import { correctSpeakers, PRODUCER_EVIDENCE, SpeakerEditError } from "../../../src/pipeline/speaker-corrections.ts";
import { notesForSpeakers } from "../../../src/pipeline/highlights/shownotes.ts";
import type { Transcript, Word } from "../../../src/pipeline/types.ts";

/**
 * Speaker corrections on a transcript: naming a voice, saying two voices are one person, and what a
 * bad edit is refused with. The show notes' speaker parts written again for the corrected cast.
 */

// Three voices: Speaker 1 asks (0-4 s), Speaker 2 answers (5-9 s), Speaker 3 (really Speaker 2, split
// off by the diarizer) goes on (10-14 s), Speaker 1 thanks them (15-17 s).
function say(speaker: string, start: number, text: string): Word[] {
  return text.split(" ").map((w, i) => ({ word: ` ${w}`, start: start + i * 0.5, end: start + i * 0.5 + 0.4, speaker }));
}
const words = [...say("Speaker 1", 0, "Theo, how did it start?"), ...say("Speaker 2", 5, "With a jar of honey."), ...say("Speaker 3", 10, "Then I bought bees."), ...say("Speaker 1", 15, "Thanks, Theo.")];
const transcript: Transcript = {
  language: "en",
  words,
  segments: [
    { speaker: "Speaker 1", start: 0, end: 2.4, text: "Theo, how did it start?" },
    { speaker: "Speaker 2", start: 5, end: 7.4, text: "With a jar of honey." },
    { speaker: "Speaker 3", start: 10, end: 11.9, text: "Then I bought bees." },
    { speaker: "Speaker 1", start: 15, end: 15.9, text: "Thanks, Theo." },
  ],
  speakerNames: { "Speaker 2": "Theo" },
  speakerNameEvidence: [{ speaker: "Speaker 2", name: "Theo", evidence: ['addressed by Speaker 1 at 0:00 ("Theo, how did it start?")'] }],
  speakerTurns: [
    { speaker: "Speaker 1", start: 0, end: 2.6 },
    { speaker: "Speaker 2", start: 5, end: 9.8 },
    { speaker: "Speaker 3", start: 9.6, end: 12.2 },
    { speaker: "Speaker 1", start: 15, end: 16 },
  ],
};

test("name: a voice found by its label gets a name, with the producer as its evidence; the same name again changes nothing", () => {
  const r = correctSpeakers(transcript, [{ speaker: "speaker 1", name: " Nora Vance " }]);
  expect(r.changes).toBe(1);
  expect(r.transcript.speakerNames).toEqual({ "Speaker 1": "Nora Vance", "Speaker 2": "Theo" });
  expect(r.transcript.speakerNameEvidence).toContainEqual({ speaker: "Speaker 1", name: "Nora Vance", evidence: [PRODUCER_EVIDENCE] });
  expect([...r.renamed]).toEqual(["Speaker 1"]);
  expect(r.merged.size).toBe(0);
  // The words keep their labels: a name is how a voice is shown.
  expect(r.transcript.words).toEqual(words);
  expect(correctSpeakers(r.transcript, [{ speaker: "Nora Vance", name: "Nora Vance" }]).changes).toBe(0);
  // The input is not changed.
  expect(transcript.speakerNames).toEqual({ "Speaker 2": "Theo" });
});

test("name: a voice found by its name is renamed, and its old evidence goes", () => {
  const r = correctSpeakers(transcript, [{ speaker: "THEO", name: "Theo Marsh" }]);
  expect(r.transcript.speakerNames).toEqual({ "Speaker 2": "Theo Marsh" });
  expect(r.transcript.speakerNameEvidence).toEqual([{ speaker: "Speaker 2", name: "Theo Marsh", evidence: [PRODUCER_EVIDENCE] }]);
});

test("same_as: the split-off voice's words, turns and segments become the person's, who keeps their name", () => {
  const r = correctSpeakers(transcript, [{ speaker: "Speaker 3", same_as: "Theo" }]);
  expect(r.changes).toBe(1);
  expect(r.merged).toEqual(new Map([["Speaker 3", "Speaker 2"]]));
  expect(new Set(r.transcript.words.map((w) => w.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
  expect(r.transcript.words.filter((w) => w.speaker === "Speaker 2").map((w) => w.word.trim()).join(" ")).toBe("With a jar of honey. Then I bought bees.");
  // Touching turns of one person are one turn.
  expect(r.transcript.speakerTurns).toEqual([
    { speaker: "Speaker 1", start: 0, end: 2.6 },
    { speaker: "Speaker 2", start: 5, end: 12.2 },
    { speaker: "Speaker 1", start: 15, end: 16 },
  ]);
  // Rebuilt from the words: the pause of 2.6 s still parts the person's two segments.
  expect(r.transcript.segments.map((s) => [s.speaker, s.text])).toEqual([
    ["Speaker 1", "Theo, how did it start?"],
    ["Speaker 2", "With a jar of honey."],
    ["Speaker 2", "Then I bought bees."],
    ["Speaker 1", "Thanks, Theo."],
  ]);
  expect(r.transcript.speakerNames).toEqual({ "Speaker 2": "Theo" });
  // The other labels stay as they were: what a producer wrote down about "Speaker 1" is still true.
  expect(r.transcript.segments[0]!.speaker).toBe("Speaker 1");
});

test("same_as on a transcript that names nobody: the voices merge and nobody is named", () => {
  const { speakerNames: _names, speakerNameEvidence: _evidence, ...nameless } = transcript;
  const r = correctSpeakers(nameless, [{ speaker: "Speaker 3", same_as: "Speaker 2" }]);
  expect(r.changes).toBe(1);
  expect(new Set(r.transcript.words.map((w) => w.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
  expect(r.transcript.speakerNames).toBeUndefined();
  expect(r.transcript.speakerNameEvidence).toBeUndefined();
});

test("same_as: merged into an unnamed voice, the person takes the merged voice's name and its evidence", () => {
  const r = correctSpeakers(transcript, [{ speaker: "Theo", same_as: "Speaker 3" }]);
  expect(r.transcript.speakerNames).toEqual({ "Speaker 3": "Theo" });
  expect(r.transcript.speakerNameEvidence).toEqual([{ speaker: "Speaker 3", name: "Theo", evidence: transcript.speakerNameEvidence![0]!.evidence }]);
  expect([...r.renamed]).toEqual(["Speaker 3"]);
  // Edits apply in order: the merged voice is then named by the name it took.
  const then = correctSpeakers(transcript, [{ speaker: "Theo", same_as: "Speaker 3" }, { speaker: "theo", name: "Theo Marsh" }]);
  expect(then.transcript.speakerNames).toEqual({ "Speaker 3": "Theo Marsh" });
  expect(then.changes).toBe(2);
});

test("start_time/end_time: the words between are the voice's; a voice left with no words is gone, its name with it", () => {
  // "Then I bought bees." (10-11.9 s) was Speaker 3's: it is Theo's.
  const r = correctSpeakers(transcript, [{ speaker: "Speaker 3", name: "Sam" }, { speaker: "theo", start_time: 9.9, end_time: 12 }]);
  expect(r.changes).toBe(2);
  expect(r.moved).toEqual([{ start: 10, end: 11.9 }]);
  expect(r.transcript.words.filter((w) => w.start >= 10 && w.start < 12).every((w) => w.speaker === "Speaker 2")).toBe(true);
  expect(r.transcript.words.some((w) => w.speaker === "Speaker 3")).toBe(false);
  expect(r.transcript.speakerNames).toEqual({ "Speaker 2": "Theo" });
  expect(r.transcript.speakerNameEvidence!.map((e) => e.speaker)).toEqual(["Speaker 2"]);
  expect(r.transcript.segments.map((x) => x.speaker)).toEqual(["Speaker 1", "Speaker 2", "Speaker 2", "Speaker 1"]);
  // The stretch is cut out of the turns it was in and is Theo's.
  expect(r.transcript.speakerTurns!.filter((x) => x.start < 11.9 && x.end > 10)).toEqual([{ speaker: "Speaker 2", start: 10, end: 11.9 }]);
  // Only the words whose middle lies between move: "bought" (11.0-11.4) alone.
  const one = correctSpeakers(transcript, [{ speaker: "Speaker 1", start_time: 11.1, end_time: 11.3 }]);
  expect(one.transcript.words.filter((w) => w.speaker === "Speaker 1" && w.start >= 10 && w.start < 14).map((w) => w.word.trim())).toEqual(["bought"]);
  // Words the voice already has: nothing to change.
  expect(correctSpeakers(transcript, [{ speaker: "Speaker 1", start_time: 0, end_time: 2.5 }]).changes).toBe(0);
});

test("start_time/end_time with a voice the transcript lacks: the person the speaker models missed is added, named so, or under the label given", () => {
  const kyle = correctSpeakers(transcript, [{ speaker: "Kyle", start_time: 15, end_time: 16 }]);
  expect(kyle.transcript.words.filter((w) => w.start >= 15).map((w) => w.speaker)).toEqual(["Speaker 4", "Speaker 4"]);
  expect(kyle.transcript.speakerNames).toEqual({ "Speaker 2": "Theo", "Speaker 4": "Kyle" });
  expect(kyle.transcript.speakerNameEvidence).toContainEqual({ speaker: "Speaker 4", name: "Kyle", evidence: [PRODUCER_EVIDENCE] });
  expect(kyle.transcript.segments.at(-1)).toMatchObject({ speaker: "Speaker 4", text: "Thanks, Theo." });
  const label = correctSpeakers(transcript, [{ speaker: "speaker 7", start_time: 15, end_time: 16 }]);
  expect(label.transcript.segments.at(-1)!.speaker).toBe("Speaker 7");
  expect(label.transcript.speakerNames).toEqual({ "Speaker 2": "Theo" });
});

test("bad edits name the field and change nothing: an unknown voice, a voice the same as itself, a name another voice has", () => {
  const refused = (edits: Parameters<typeof correctSpeakers>[1]) => {
    try {
      correctSpeakers(transcript, edits);
    } catch (err) {
      expect(err).toBeInstanceOf(SpeakerEditError);
      return { param: (err as SpeakerEditError).param, message: (err as Error).message };
    }
    throw new Error("accepted");
  };
  expect(refused([{ speaker: "Speaker 9", name: "Ann" }])).toEqual({ param: "speakers.0.speaker", message: 'No speaker "Speaker 9" in this transcript; it has "Speaker 1", "Theo", "Speaker 3".' });
  expect(refused([{ speaker: "Speaker 1", name: "Ann" }, { speaker: "Speaker 3", same_as: "Bob" }]).param).toBe("speakers.1.same_as");
  expect(refused([{ speaker: "Theo", same_as: "speaker 2" }]).param).toBe("speakers.0.same_as");
  expect(refused([{ speaker: "Speaker 1", name: "theo" }])).toMatchObject({ param: "speakers.0.name", message: expect.stringContaining("use same_as") });
  expect(refused([{ speaker: "Theo", start_time: 3, end_time: 4.5 }])).toEqual({ param: "speakers.0.start_time", message: "Nothing said has its middle between 3 and 4.5 s." });
  // A merged voice is gone: a later edit cannot find it.
  expect(refused([{ speaker: "Speaker 3", same_as: "Speaker 2" }, { speaker: "Speaker 3", name: "X" }]).param).toBe("speakers.1.speaker");
  expect(transcript.speakerNames).toEqual({ "Speaker 2": "Theo" });
});

test("the notes' speakers list, quote credits, opening and title follow a rename and a merge; what was said does not change", () => {
  const notes = [
    "# Honey on the Roof with Theo",
    "",
    "In this 1-minute episode, Theo and 2 other speakers talk about honey. Theo: “With a jar of honey.”",
    "",
    "## Notable quotes",
    "",
    "> “Then I bought bees.”",
    "> — Speaker 3, 0:10",
    "",
    "> “With a jar of honey.”",
    "> — Theo, 0:05",
    "",
    "## Speakers",
    "",
    "- Theo (Speaker 2): 60% of speaking time, 1 turn",
    "- Speaker 1: 30% of speaking time, 2 turns",
    "- Speaker 3: 10% of speaking time, 1 turn",
    "",
  ].join("\n");
  const r = correctSpeakers(transcript, [{ speaker: "Speaker 3", same_as: "Theo" }, { speaker: "Theo", name: "Theo Marsh" }]);
  const out = notesForSpeakers(notes, transcript, r.transcript, (l) => r.merged.get(l) ?? l);
  expect(out.split("\n")).toEqual([
    "# Honey on the Roof with Theo Marsh",
    "",
    "In this 1-minute episode, Theo Marsh and one other speaker talk about honey. Theo Marsh: “With a jar of honey.”",
    "",
    "## Notable quotes",
    "",
    "> “Then I bought bees.”",
    "> — Theo Marsh, 0:10",
    "",
    "> “With a jar of honey.”",
    "> — Theo Marsh, 0:05",
    "",
    "## Speakers",
    "",
    "- Theo Marsh (Speaker 2): 67% of speaking time, 2 turns",
    "- Speaker 1: 33% of speaking time, 2 turns",
    "",
  ]);
});

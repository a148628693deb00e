import { expect, test } from "bun:test";
import { diarizationSummary, type ScoredFile } from "../../../../scripts/bench/asr-diarization.ts";

const der = (d: number, hyp: number, ref: number) => ({ der: d, missed: 0, falseAlarm: 0, confusion: d * 10, refSpeech: 10, refSpeakers: ref, hypSpeakers: hyp });

test("the speech bench's summary gives count and turn ends on a sentence end per file and pooled per split", () => {
  const files: ScoredFile[] = [
    { name: "two_speakers_call", der: der(0.1, 2, 2), engine: "e", turns: { changes: 7, atSentenceEnd: 7 }, shownSpeakers: 2, transcriptDer: 0.2 },
    { name: "meeting_trn04", der: der(0.4, 2, 3), engine: "e", turns: { changes: 3, atSentenceEnd: 1 }, shownSpeakers: 2, transcriptDer: 0.5 },
    { name: "meeting_trn08", der: der(0.45, 4, 4), engine: "e", turns: { changes: 4, atSentenceEnd: 3 }, shownSpeakers: 3, transcriptDer: 0.6 },
    { name: "meeting_trn03", der: der(0.04, 1, 2), engine: "e", turns: { changes: 0, atSentenceEnd: 0 }, shownSpeakers: 1, transcriptDer: 0.2 },
  ];
  const rows = diarizationSummary(files).split("\n");
  // Cells are separated by " | " ("mean |err| 0.67" holds bars of its own).
  const row = (label: string) => ["", ...rows.find((r) => r.startsWith(`| ${label} `))!.slice(2, -2).split(" | ").map((c) => c.trim())];
  expect(row("meeting_trn04").slice(6, 11)).toEqual(["2/3", "-1", "2/3", "50.0%", "33.3% of 3"]);
  expect(row("meeting_trn03")[10]).toBe("- of 0");
  // The transcript's count is the words' speakers: trn08's activity has 4, its words 3.
  expect(row("meeting_trn08").slice(6, 10)).toEqual(["4/4", "0", "3/4", "60.0%"]);
  // Tuning split: the call, trn03 and trn04 pooled (8 of 10 changes); held-out: trn08 alone.
  expect(row("mean, tuning split (6)").slice(6, 11)).toEqual(["1/3 exact", "mean |err| 0.67", "1/3 exact, |err| 0.67", "30.0%", "80.0% of 10"]);
  expect(row("mean, held-out split (3)").slice(6, 11)).toEqual(["1/1 exact", "mean |err| 0.00", "0/1 exact, |err| 1.00", "60.0%", "75.0% of 4"]);
  // Without word figures (the cached-features sweep) the column says so.
  expect(diarizationSummary([{ name: "meeting_trn08", der: der(0.45, 4, 4), engine: "e" }])).toContain("| -");
});

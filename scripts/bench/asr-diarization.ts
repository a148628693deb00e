/**
 * The diarization part of the speech benchmark: which recordings are AMI meeting openings, and the
 * summary table (DER per file, the mean over the openings, the speaker-count error). Pure functions.
 */
import type { DerResult } from "./asr-scoring.ts";

/** AMI meeting openings with enough speech to score (several speakers, far-field, overlap). */
export const AMI_OPENINGS = ["meeting_excerpt", ...[3, 4, 5, 6, 7, 8, 9].map((i) => `meeting_trn0${i}`)];
/** Openings that are mostly silence with short interjections: a few seconds of speech swing their DER, so they are reported apart. */
export const AMI_MOSTLY_SILENT = ["meeting_trn01", "meeting_trn02"];
/**
 * The split for tuning speaker counting: settings are chosen on TUNING_SPLIT only and reported on
 * HELD_OUT_SPLIT apart, so a setting that only fits the files it was tried on shows up there.
 */
export const TUNING_SPLIT = ["two_speakers_call", "meeting_trn03", "meeting_trn04", "meeting_trn05", "meeting_trn06", "meeting_trn07"];
export const HELD_OUT_SPLIT = ["meeting_excerpt", "meeting_trn08", "meeting_trn09"];

export interface ScoredFile {
  name: string;
  der: DerResult;
  engine: string;
  /** Speaker changes between words, and how many of them fall on a sentence end (absent without words). */
  turns?: { changes: number; atSentenceEnd: number };
  /**
   * Speakers who own words: the count a producer sees (transcript, captions, notes, cards), where
   * `der.hypSpeakers` counts every speaker in the diarizer's activity (absent without words).
   */
  shownSpeakers?: number;
  /**
   * DER of the transcript's segments as the API and transcript.json give them (one speaker at a time,
   * from the first word to the last): what a reader of the output can score, where `der` scores the
   * diarizer's overlap-aware activity, which stays inside the appliance.
   */
  transcriptDer?: number;
}

/** Turn ends on a sentence end, pooled over the files that have words: "83.3% of 12". */
function turnEnds(files: ScoredFile[]): string {
  const t = files.filter((f) => f.turns);
  if (!t.length) return "-";
  const changes = t.reduce((s, f) => s + f.turns!.changes, 0);
  const at = t.reduce((s, f) => s + f.turns!.atSentenceEnd, 0);
  return changes ? `${((100 * at) / changes).toFixed(1)}% of ${changes}` : "- of 0";
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** Mean DER (per file, unweighted) and speaker-count errors over the named files that were scored. */
export function groupFigures(files: ScoredFile[], names: string[]): { n: number; meanDer: number; meanAbsCountError: number; exactCount: number; shown?: { n: number; exactCount: number; meanAbsCountError: number; meanTranscriptDer?: number } } {
  const fs = files.filter((f) => names.includes(f.name));
  const n = fs.length;
  if (!n) return { n, meanDer: NaN, meanAbsCountError: NaN, exactCount: 0 };
  const withWords = fs.filter((f) => f.shownSpeakers !== undefined);
  const shownError = (f: ScoredFile) => f.shownSpeakers! - f.der.refSpeakers;
  return {
    n,
    meanDer: fs.reduce((s, f) => s + f.der.der, 0) / n,
    meanAbsCountError: fs.reduce((s, f) => s + Math.abs(f.der.hypSpeakers - f.der.refSpeakers), 0) / n,
    exactCount: fs.filter((f) => f.der.hypSpeakers === f.der.refSpeakers).length,
    ...(withWords.length
      ? {
          shown: {
            n: withWords.length,
            exactCount: withWords.filter((f) => shownError(f) === 0).length,
            meanAbsCountError: withWords.reduce((s, f) => s + Math.abs(shownError(f)), 0) / withWords.length,
            // Over the same files as meanDer: a file without words has every reference second missed.
            ...(fs.every((f) => f.transcriptDer !== undefined) ? { meanTranscriptDer: fs.reduce((s, f) => s + f.transcriptDer!, 0) / n } : {}),
          },
        }
      : {}),
  };
}

export function diarizationSummary(files: ScoredFile[]): string {
  const rows = [["file", "DER", "missed", "false alarm", "confusion", "speakers hyp/ref", "count error", "in transcript/ref", "transcript DER", "turn ends on sentence end"]];
  for (const f of files) {
    const d = f.der;
    const shown = f.shownSpeakers === undefined ? "-" : `${f.shownSpeakers}/${d.refSpeakers}`;
    const tDer = f.transcriptDer === undefined ? "-" : pct(f.transcriptDer);
    rows.push([f.name, pct(d.der), pct(d.missed / d.refSpeech), pct(d.falseAlarm / d.refSpeech), pct(d.confusion / d.refSpeech), `${d.hypSpeakers}/${d.refSpeakers}`, String(d.hypSpeakers - d.refSpeakers), shown, tDer, turnEnds([f])]);
  }
  const groups: Array<[string, string[]]> = [
    [`mean, AMI openings (${AMI_OPENINGS.length})`, AMI_OPENINGS],
    [`mean, trn01/trn02 (mostly silence)`, AMI_MOSTLY_SILENT],
    [`mean, tuning split (${TUNING_SPLIT.length})`, TUNING_SPLIT],
    [`mean, held-out split (${HELD_OUT_SPLIT.length})`, HELD_OUT_SPLIT],
  ];
  for (const [label, names] of groups) {
    const g = groupFigures(files, names);
    const shown = g.shown ? `${g.shown.exactCount}/${g.shown.n} exact, |err| ${g.shown.meanAbsCountError.toFixed(2)}` : "-";
    const tDer = g.shown?.meanTranscriptDer === undefined ? "-" : pct(g.shown.meanTranscriptDer);
    if (g.n) rows.push([label, pct(g.meanDer), "", "", "", `${g.exactCount}/${g.n} exact`, `mean |err| ${g.meanAbsCountError.toFixed(2)}`, shown, tDer, turnEnds(files.filter((f) => names.includes(f.name)))]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  const engines = [...new Set(files.map((f) => f.engine))].join("; ");
  return [line(rows[0]!), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line), `engine: ${engines}`].join("\n");
}

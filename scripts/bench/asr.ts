#!/usr/bin/env bun
/**
 * Speech benchmark: WER and real-time factor on jfk.wav and Debian's LibriVox test recordings
 * (pocketsphinx-testdata); DER on the phone call and the ten AMI meeting openings; how speaker turns sit
 * on sentences (turn ends on a sentence end, sentences split across two speakers) and, on the phone
 * call, words given to the wrong speaker. Prints one table.
 *
 *   bun scripts/bench/asr.ts [--models whisper-tiny.en,whisper-base] [--repeat 20] [--turns aligned|raw|both] [--sets two_speakers,meeting] [--no-job] [--diarizer auto|mfcc]
 *   bun scripts/bench/asr.ts --diarization [--diarizer auto|mfcc]   (only the diarization references, whisper-tiny.en)
 *
 * After the table, a diarization summary per model: DER per file (no collar, overlapping speech
 * counted once per speaker), the mean over the AMI meeting openings (trn01/trn02, mostly silence,
 * reported apart) and the speaker-count error (hypothesis minus reference speakers).
 *
 * RTF = seconds of processing / seconds of audio. "wall" is elapsed time of the whole transcribeFile
 * call (decode, VAD, recognition, diarization, model load included); "cpu" is the worker processes'
 * user+system CPU time divided by the cores used, which stays meaningful when the machine is shared;
 * "job cpu" is the CPU time of a whole `clipyard transcribe FILE --json` process (Bun start, decode,
 * workers, diarization, JSON) divided by the cores. `--turns raw` scores the diarizer's word labels
 * before turn realignment (`turns-realign.ts`), `both` prints both.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { diarizationErrorRate, parseRttm, parseTurnText, parseUem, turnSentenceStats, turnsFromWords, wordErrorRate, wordSpeakerErrors, type DerResult, type Turn } from "./asr-scoring.ts";
import { diarizationSummary, AMI_OPENINGS, AMI_MOSTLY_SILENT } from "./asr-diarization.ts";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { stringFlag } from "./load.ts";

const MEDIA = SHARED_MEDIA;
const LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox";

const DIARIZATION_ONLY = process.argv.includes("--diarization");
const models = (stringFlag("models") ?? (DIARIZATION_ONLY ? "whisper-tiny.en" : "whisper-tiny.en,whisper-base")).split(",");
const diarizer = (stringFlag("diarizer") ?? "auto") as "auto" | "mfcc";
const turnModes = ({ aligned: [true], raw: [false], both: [false, true] } as Record<string, boolean[]>)[stringFlag("turns") ?? "aligned"];
if (!turnModes) throw new Error("--turns takes aligned, raw or both");
const setFilter = stringFlag("sets")?.split(",");
const job = !DIARIZATION_ONLY && !process.argv.includes("--no-job");
const cores = cpus().length;

interface Item {
  set: string;
  /** The file's own name, for the per-file diarization summary. */
  name: string;
  path: string;
  ref?: string;
  rttm?: string;
  uem?: string;
  turns?: Turn[];
  /** Reference text per speaker turn. */
  turnText?: Array<{ speaker: string; text: string }>;
}

const items: Item[] = DIARIZATION_ONLY ? [] : [{ set: "jfk", name: "jfk", path: join(MEDIA, "jfk.wav"), ref: readFileSync(join(MEDIA, "jfk.ref.txt"), "utf8") }];
if (DIARIZATION_ONLY) {
  // no recognition-only sets
} else if (existsSync(LIBRIVOX)) {
  for (const line of readFileSync(join(LIBRIVOX, "transcription"), "utf8").split("\n")) {
    const m = line.match(/^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)$/);
    if (m) items.push({ set: "librivox", name: m[2]!, path: join(LIBRIVOX, `${m[2]}.wav`), ref: m[1] });
  }
} else {
  process.stderr.write(`LibriVox recordings missing (${LIBRIVOX}); run scripts/setup/asr.sh\n`);
}
for (const name of ["two_speakers_call", ...AMI_OPENINGS, ...AMI_MOSTLY_SILENT]) {
  const uem = join(MEDIA, `${name}.uem`);
  // The nine AMI openings are scored as one set: 30 s each is too little for a figure of its own.
  const set = name.startsWith("meeting_trn") ? "meeting_trn01-09" : name;
  items.push({ set, name, path: join(MEDIA, `${name}.wav`), rttm: join(MEDIA, `${name}.rttm`), uem: existsSync(uem) ? uem : undefined });
}
const twoRef = join(MEDIA, "two_speakers_call.ref.txt");
const twoTurns = parseTurnText(readFileSync(join(MEDIA, "two_speakers_call.turns.txt"), "utf8"));
Object.assign(items.find((i) => i.set === "two_speakers_call")!, { ref: readFileSync(twoRef, "utf8"), turnText: twoTurns });

// Long-form: the phone call repeated to 10 minutes, so model loading and 30-s window padding stop
// dominating the real-time factor, and diarization must stay consistent across many turns.
const REPEAT = DIARIZATION_ONLY ? 0 : Number(stringFlag("repeat") ?? 20);
if (REPEAT > 0) {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-bench-"));
  const list = join(dir, "list.txt");
  writeFileSync(list, Array.from({ length: REPEAT }, () => `file '${join(MEDIA, "two_speakers_call.wav")}'`).join("\n"));
  const long = join(dir, `two_speakers_call_x${REPEAT}.wav`);
  Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "concat", "-safe", "0", "-i", list, "-c", "copy", long]);
  const one = parseRttm(readFileSync(join(MEDIA, "two_speakers_call.rttm"), "utf8"));
  const turns = Array.from({ length: REPEAT }, (_, r) => one.map((t) => ({ ...t, start: t.start + 30 * r, end: t.end + 30 * r }))).flat();
  items.push({ set: `two_speakers_call x${REPEAT}`, name: `two_speakers_call x${REPEAT}`, path: long, ref: Array(REPEAT).fill(readFileSync(twoRef, "utf8")).join(" "), turns, turnText: Array(REPEAT).fill(twoTurns).flat() });
}
const selected = setFilter ? items.filter((i) => setFilter.some((f) => i.set.includes(f))) : items;

interface Row {
  model: string;
  aligned: boolean;
  set: string;
  name: string;
  audio: number;
  words: number;
  errors: number;
  refWords: number;
  wall: number;
  cpu: number;
  jobCpu?: number;
  der?: DerResult;
  engine?: string;
  speakers?: string;
  changes: number;
  changesAtSentenceEnd: number;
  sentences: number;
  splitSentences: number;
  spkAligned?: number;
  spkWrong?: number;
  /** Speakers who own words (what the transcript shows). */
  shownSpeakers: number;
  /** DER of the transcript's segments (what the API gives). */
  transcriptDer?: number;
}
const rows: Row[] = [];
const duration = (p: string) => Number(new TextDecoder().decode(Bun.spawnSync(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", p]).stdout));
const cli = join(import.meta.dir, "../../src/main.ts");

/** CPU seconds (user + system, its children included) of one whole `clipyard transcribe FILE --json`. */
function jobCpuSeconds(path: string, model: string): number {
  const r = Bun.spawnSync(["bun", cli, "transcribe", path, "--json", "--model", model], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`clipyard transcribe ${path} failed: ${r.stderr.toString()}`);
  const out = JSON.parse(r.stdout.toString()) as Record<string, unknown>;
  // the command's output shape every caller relies on
  for (const key of ["segments", "words", "language"]) if (!(key in out)) throw new Error(`clipyard transcribe --json lacks ${key}`);
  return Number(r.resourceUsage.cpuTime.total) / 1e6;
}

for (const model of models) {
  // warm the page cache so the first file does not pay for reading the model from disk
  await transcribeFile(join(MEDIA, "jfk.wav"), { model, diarize: false });
  for (const it of selected) {
    const jobCpu = job ? jobCpuSeconds(it.path, model) / cores : undefined;
    for (const aligned of turnModes) {
      let cpu = 0;
      const t0 = performance.now();
      const t = await transcribeFile(it.path, {
        model,
        threads: cores,
        alignTurns: aligned,
        diarizer,
        onStats: (_stage, u) => {
          cpu += u.cpuSeconds ?? 0;
        },
      });
      const wall = (performance.now() - t0) / 1000;
      const row: Row = { model, aligned, set: it.set, name: it.name, audio: duration(it.path), words: t.words.length, errors: 0, refWords: 0, wall, cpu: cpu / cores, jobCpu, ...turnSentenceStats(t.words), shownSpeakers: new Set(t.words.map((w) => w.speaker)).size };
      if (it.ref) {
        const w = wordErrorRate(it.ref, t.words.map((x) => x.word).join(" "));
        row.errors = w.substitutions + w.deletions + w.insertions;
        row.refWords = w.refWords;
      }
      if (it.turnText) {
        const e = wordSpeakerErrors(it.turnText, t.words);
        row.spkAligned = e.aligned;
        row.spkWrong = e.wrong;
      }
      if (it.rttm || it.turns) {
        const ref = it.turns ?? parseRttm(readFileSync(it.rttm!, "utf8"));
        // Overlap-aware where the diarizer gives it: two people at once count as two speakers.
        const d = diarizationErrorRate(ref, t.speakerActivity ?? t.speakerTurns ?? turnsFromWords(t.words), it.uem ? parseUem(readFileSync(it.uem, "utf8")) : undefined);
        row.der = d;
        row.transcriptDer = diarizationErrorRate(ref, t.segments, it.uem ? parseUem(readFileSync(it.uem, "utf8")) : undefined).der;
        row.engine = t.engine;
        row.speakers = `${d.hypSpeakers}/${d.refSpeakers}`;
      }
      rows.push(row);
    }
  }
}

// One line per model, turn mode and set (several files pooled: each figure over all their words, turns, speech and audio).
const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : "-");
const sum = (rs: Row[], f: (r: Row) => number | undefined) => rs.reduce((s, r) => s + (f(r) ?? 0), 0);
const table = [["model", "turns", "set", "files", "audio s", "words", "WER", "turn ends on sentence end", "sentences split", "words to wrong speaker", "RTF wall", "RTF cpu", "RTF job cpu", "DER", "speakers hyp/ref"]];
for (const model of models) {
  for (const aligned of turnModes) {
    for (const set of [...new Set(selected.map((i) => i.set))]) {
      const rs = rows.filter((r) => r.model === model && r.aligned === aligned && r.set === set);
      const audio = sum(rs, (r) => r.audio);
      const der = rs.filter((r) => r.der);
      const refSpeech = sum(der, (r) => r.der!.refSpeech);
      const [miss, fa, conf] = (["missed", "falseAlarm", "confusion"] as const).map((k) => sum(der, (r) => r.der![k]));
      table.push([
        model,
        aligned ? "aligned" : "raw",
        set,
        String(rs.length),
        audio.toFixed(1),
        String(sum(rs, (r) => r.words)),
        pct(sum(rs, (r) => r.errors), sum(rs, (r) => r.refWords)),
        `${pct(sum(rs, (r) => r.changesAtSentenceEnd), sum(rs, (r) => r.changes))} of ${sum(rs, (r) => r.changes)}`,
        `${pct(sum(rs, (r) => r.splitSentences), sum(rs, (r) => r.sentences))} of ${sum(rs, (r) => r.sentences)}`,
        pct(sum(rs, (r) => r.spkWrong), sum(rs, (r) => r.spkAligned)),
        (sum(rs, (r) => r.wall) / audio).toFixed(3),
        (sum(rs, (r) => r.cpu) / audio).toFixed(3),
        job ? (sum(rs, (r) => r.jobCpu) / audio).toFixed(3) : "-",
        refSpeech ? `${pct(miss! + fa! + conf!, refSpeech)} (miss ${pct(miss!, refSpeech)}, fa ${pct(fa!, refSpeech)}, conf ${pct(conf!, refSpeech)})` : "-",
        der.map((r) => r.speakers).join(" ") || "-",
      ]);
    }
  }
}
const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(`speech benchmark — ${cores} cores (${cpus()[0]?.model ?? "cpu"}), load average ${loadavg()[0]!.toFixed(1)} at end`);
console.log(line(table[0]!));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const r of table.slice(1)) console.log(line(r));
for (const model of models) {
  for (const aligned of turnModes) {
    const scored = rows.filter((r) => r.model === model && r.aligned === aligned && r.der).map((r) => ({ name: r.name, der: r.der!, engine: r.engine ?? "", turns: { changes: r.changes, atSentenceEnd: r.changesAtSentenceEnd }, shownSpeakers: r.words ? r.shownSpeakers : undefined, transcriptDer: r.transcriptDer }));
    if (scored.length) console.log(`\ndiarization — ${model}, turns ${aligned ? "aligned" : "raw"}, diarizer ${diarizer}\n${diarizationSummary(scored)}`);
  }
}

#!/usr/bin/env bun
/**
 * Speech benchmark: WER and real-time factor on jfk.wav and Debian's LibriVox test recordings
 * (pocketsphinx-testdata), DER on the two diarization references. Prints one table.
 *
 *   bun scripts/bench/asr.ts [--models whisper-tiny.en,whisper-base] [--repeat 20] [--diarizer auto|mfcc]
 *   bun scripts/bench/asr.ts --diarization [--diarizer auto|mfcc]   (only the diarization references, whisper-tiny.en)
 *
 * The diarization table has DER per file (no collar, overlapping speech counted once per speaker), the
 * mean over the AMI meeting openings (trn01/trn02, mostly silence, reported apart) and the speaker-count
 * error (hypothesis minus reference speakers).
 *
 * RTF = seconds of processing / seconds of audio. "wall" is elapsed time of the whole transcribeFile
 * call (decode, VAD, recognition, diarization, model load included); "cpu" is the worker processes'
 * user+system CPU time divided by the cores used, which stays meaningful when the machine is shared.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { transcribeFile } from "../../src/pipeline/transcribe.ts";
import { diarizationErrorRate, parseRttm, parseUem, turnsFromWords, wordErrorRate, type DerResult, type Turn } from "./asr-scoring.ts";
import { diarizationSummary, AMI_OPENINGS, AMI_MOSTLY_SILENT } from "./asr-diarization.ts";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { stringFlag } from "./load.ts";

const MEDIA = SHARED_MEDIA;
const LIBRIVOX = "/usr/share/pocketsphinx/test/data/librivox";

const DIARIZATION_ONLY = process.argv.includes("--diarization");
const models = (stringFlag("models") ?? (DIARIZATION_ONLY ? "whisper-tiny.en" : "whisper-tiny.en,whisper-base")).split(",");
const diarizer = (stringFlag("diarizer") ?? "auto") as "auto" | "mfcc";
const cores = cpus().length;

interface Item {
  set: string;
  path: string;
  ref?: string;
  rttm?: string;
  uem?: string;
  turns?: Turn[];
}

const items: Item[] = DIARIZATION_ONLY ? [] : [{ set: "jfk", path: join(MEDIA, "jfk.wav"), ref: readFileSync(join(MEDIA, "jfk.ref.txt"), "utf8") }];
if (DIARIZATION_ONLY) {
  // no recognition-only sets
} else if (existsSync(LIBRIVOX)) {
  for (const line of readFileSync(join(LIBRIVOX, "transcription"), "utf8").split("\n")) {
    const m = line.match(/^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)$/);
    if (m) items.push({ set: "librivox", path: join(LIBRIVOX, `${m[2]}.wav`), ref: m[1] });
  }
} else {
  process.stderr.write(`LibriVox recordings missing (${LIBRIVOX}); run scripts/setup/asr.sh\n`);
}
for (const name of ["two_speakers_call", ...AMI_OPENINGS, ...AMI_MOSTLY_SILENT]) {
  const uem = join(MEDIA, `${name}.uem`);
  items.push({ set: name, path: join(MEDIA, `${name}.wav`), rttm: join(MEDIA, `${name}.rttm`), uem: existsSync(uem) ? uem : undefined });
}
const twoRef = join(MEDIA, "two_speakers_call.ref.txt");
items.find((i) => i.set === "two_speakers_call")!.ref = readFileSync(twoRef, "utf8");

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
  items.push({ set: `two_speakers_call x${REPEAT}`, path: long, ref: Array(REPEAT).fill(readFileSync(twoRef, "utf8")).join(" "), turns });
}

type Row = { model: string; set: string; audio: number; errors: number; refWords: number; wall: number; cpu: number; der?: string; speakers?: string; derResult?: DerResult; engine?: string };
const rows: Row[] = [];
const duration = (p: string) => Number(new TextDecoder().decode(Bun.spawnSync(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", p]).stdout));

for (const model of models) {
  // warm the page cache so the first file does not pay for reading the model from disk
  await transcribeFile(join(MEDIA, "jfk.wav"), { model, diarize: false });
  for (const it of items) {
    let cpu = 0;
    const t0 = performance.now();
    const t = await transcribeFile(it.path, {
      model,
      threads: cores,
      diarizer,
      onStats: (_stage, u) => {
        cpu += u.cpuSeconds ?? 0;
      },
    });
    const wall = (performance.now() - t0) / 1000;
    const row: Row = { model, set: it.set, audio: duration(it.path), errors: 0, refWords: 0, wall, cpu: cpu / cores };
    if (it.ref) {
      const w = wordErrorRate(it.ref, t.words.map((x) => x.word).join(" "));
      row.errors = w.substitutions + w.deletions + w.insertions;
      row.refWords = w.refWords;
    }
    if (it.rttm || it.turns) {
      const ref = it.turns ?? parseRttm(readFileSync(it.rttm!, "utf8"));
      const d = diarizationErrorRate(ref, t.speakerActivity ?? t.speakerTurns ?? turnsFromWords(t.words), it.uem ? parseUem(readFileSync(it.uem, "utf8")) : undefined);
      row.der = `${(100 * d.der).toFixed(1)}% (miss ${(100 * d.missed / d.refSpeech).toFixed(1)}, fa ${(100 * d.falseAlarm / d.refSpeech).toFixed(1)}, conf ${(100 * d.confusion / d.refSpeech).toFixed(1)})`;
      row.speakers = `${d.hypSpeakers}/${d.refSpeakers}`;
      row.derResult = d;
      row.engine = t.engine;
    }
    rows.push(row);
  }
}

// One line per model and set (LibriVox files pooled: WER over all their words, RTF over all their audio).
const table = [["model", "set", "files", "audio s", "WER", "RTF wall", "RTF cpu", "DER", "speakers hyp/ref"]];
for (const model of models) {
  for (const set of [...new Set(items.map((i) => i.set))]) {
    const rs = rows.filter((r) => r.model === model && r.set === set);
    const audio = rs.reduce((s, r) => s + r.audio, 0);
    const refWords = rs.reduce((s, r) => s + r.refWords, 0);
    const errors = rs.reduce((s, r) => s + r.errors, 0);
    table.push([
      model,
      set,
      String(rs.length),
      audio.toFixed(1),
      refWords ? `${((100 * errors) / refWords).toFixed(1)}%` : "-",
      (rs.reduce((s, r) => s + r.wall, 0) / audio).toFixed(3),
      (rs.reduce((s, r) => s + r.cpu, 0) / audio).toFixed(3),
      rs[0]?.der ?? "-",
      rs[0]?.speakers ?? "-",
    ]);
  }
}
const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
console.log(`speech benchmark — ${cores} cores (${cpus()[0]?.model ?? "cpu"}), load average ${loadavg()[0]!.toFixed(1)} at end`);
console.log(line(table[0]!));
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const r of table.slice(1)) console.log(line(r));
for (const model of models) {
  const scored = rows.filter((r) => r.model === model && r.derResult).map((r) => ({ name: r.set, der: r.derResult!, engine: r.engine ?? "" }));
  if (scored.length) console.log(`\ndiarization — ${model}, diarizer ${diarizer}\n${diarizationSummary(scored)}`);
}

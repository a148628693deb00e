#!/usr/bin/env bun
/**
 * Parity of the single executable with the source checkout on every shared recording (issue #33):
 * `clipyard process FILE --min-seconds 5 --max-seconds 20` (3 clips asked for: the recordings are
 * 5-30 s) from the compiled binary in an empty folder with no Python on PATH (whisper.cpp in-process)
 * and from the source with the speech runtime (CTranslate2), default recogniser (whisper-base) and
 * every default model. Prints per recording and path: clips, speakers, language, the recogniser,
 * whether the other engines and the warnings agree (less the documented engine differences,
 * test/helpers/parity.ts), the warnings themselves, WER against .ref.txt where there is one, and the
 * wall time (noisy on a shared machine).
 * Usage: bun scripts/bench/parity.ts [--only jfk,two_speakers_call] [--binary PATH] [--keep DIR] [--source-from DIR]
 * (--keep: write both paths' outputs under DIR and leave them, to compare transcript.json and job.json;
 * --source-from: the source path's outputs from an earlier --keep DIR instead of running it again, for a
 * change that touches only the binary's recogniser; a recording that failed there is run again)
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_MEDIA } from "../../test/helpers/paths.ts";
import { binaryEnv, buildBinaryInto, enginesBesidesRecogniser, linkModels, ROOT, runProcess, summariseRun, warningsBesidesEngine, type ProcessRun } from "../../test/helpers/parity.ts";
import { sameSpelling, wordErrorRate } from "./asr-scoring.ts";
import { table } from "./load.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const only = arg("--only")?.split(",");
const sourceFrom = arg("--source-from");
const recordings = readdirSync(SHARED_MEDIA)
  .filter((f) => /\.(wav|mp4)$/.test(f))
  .filter((f) => !only || only.includes(f.replace(/\.\w+$/, "")))
  .sort();

const keep = arg("--keep");
const work = keep ? (mkdirSync(keep, { recursive: true }), keep) : mkdtempSync(join(tmpdir(), "clipyard-bench-parity-"));
try {
  const dir = join(work, "empty");
  const models = join(work, "models");
  const binary = arg("--binary") ?? buildBinaryInto(work, dir);
  linkModels(models);
  const sourceEnv = { ...process.env };
  delete sourceEnv.CLIPYARD_ASR_MODEL;
  delete sourceEnv.CLIPYARD_ASR_ENGINE;
  const executableEnv = binaryEnv(work, work, models);
  const rows: Record<string, string | number>[] = [];
  const warnings: string[] = [];
  const load0 = loadavg()[0]!;
  for (const f of recordings) {
    const file = join(SHARED_MEDIA, f);
    const name = f.replace(/\.\w+$/, "");
    const ref = join(SHARED_MEDIA, `${name}.ref.txt`);
    const runs: Array<[string, ProcessRun]> = [
      ["binary, no Python", await runProcess([binary], file, join(work, `${name}-binary`), { cwd: work, env: executableEnv })],
      [
        "source + runtime",
        sourceFrom && existsSync(join(sourceFrom, `${name}-source`, "job.json"))
          ? summariseRun(join(sourceFrom, `${name}-source`), { code: 0, stderr: "", seconds: NaN })
          : await runProcess(["bun", "run", join(ROOT, "src/main.ts")], file, join(work, `${name}-source`), { cwd: ROOT, env: sourceEnv }),
      ],
    ];
    const [b, s] = [runs[0]![1], runs[1]![1]];
    const agree = (x: unknown, y: unknown) => (JSON.stringify(x) === JSON.stringify(y) ? "same" : "DIFFER");
    for (const [path, r] of runs) {
      const failed = r.code !== 0 ? (r.stderr.match(/failed \((\w+)\)/)?.[1] ?? `exit ${r.code}`) : "";
      rows.push({
        recording: name,
        path,
        clips: failed ? `failed: ${failed}` : r.clips!,
        speakers: r.speakers ?? "-",
        language: r.language ?? "-",
        recogniser: r.engine?.asr?.split(" + ")[0] ?? "-",
        "other engines": b.engine && s.engine ? agree(enginesBesidesRecogniser(b.engine), enginesBesidesRecogniser(s.engine)) : "-",
        warnings: r.warnings ? `${r.warnings.length} (${warningsBesidesEngine(r.warnings).length} beside engine)` : "-",
        "warnings agree": b.warnings && s.warnings ? agree(warningsBesidesEngine(b.warnings), warningsBesidesEngine(s.warnings)) : "-",
        WER: existsSync(ref) && r.text !== undefined ? `${(100 * wordErrorRate(sameSpelling(readFileSync(ref, "utf8")), sameSpelling(r.text)).wer).toFixed(1)} %` : "-",
        "wall s": Number.isNaN(r.seconds) ? "from --source-from" : Number(r.seconds.toFixed(1)),
      });
      for (const w of r.warnings ?? []) warnings.push(`${name} / ${path}: ${w}`);
    }
    console.error(`${name}: done (load ${loadavg()[0]!.toFixed(1)})`);
  }
  console.log(`clipyard process, binary (no Python on PATH) against source (speech runtime), ${cpus().length} cores (${cpus()[0]?.model}), load average ${load0.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at end`);
  console.log(table(rows));
  console.log("\nwarnings:");
  for (const w of warnings) console.log(`- ${w}`);
} finally {
  if (!keep) rmSync(work, { recursive: true, force: true });
}

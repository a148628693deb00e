#!/usr/bin/env bun
/**
 * A grid of count-estimator settings over diarize-sweep.ts's cached features (run that first to fill the
 * cache): per setting, mean DER, exact counts and over-counts on the tuning split, then the held-out
 * split. Settings are to be chosen by the tuning columns alone; the held-out ones are the check.
 *
 *   nice bun scripts/bench/count-grid.ts [--cache /tmp/clipyard-diarize-cache] [--count vbx|eigengap]
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { diarizeFromEmbeddings, type EmbeddingDiarizeOptions } from "../../src/pipeline/transcribe/diarize-embeddings.ts";
import { diarizationErrorRate, parseRttm, parseUem } from "./asr-scoring.ts";
import { HELD_OUT_SPLIT, TUNING_SPLIT } from "./asr-diarization.ts";

const SHARED = process.env.CLIPYARD_SHARED_MEDIA ?? join(import.meta.dir, "../../../shared/media");
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const cacheDir = arg("cache") ?? join(tmpdir(), "clipyard-diarize-cache");
const estimator = (arg("count") ?? "vbx") as "vbx" | "eigengap";

const files = [...TUNING_SPLIT, ...HELD_OUT_SPLIT].map((name) => {
  const c = JSON.parse(readFileSync(join(cacheDir, `${name}.json`), "utf8"));
  const uem = join(SHARED, `${name}.uem`);
  return { name, c, ref: parseRttm(readFileSync(join(SHARED, `${name}.rttm`), "utf8")), uem: existsSync(uem) ? parseUem(readFileSync(uem, "utf8")) : undefined };
});

function score(opts: EmbeddingDiarizeOptions, names: string[]) {
  const rs = files
    .filter((f) => names.includes(f.name))
    .map((f) => {
      const r = diarizeFromEmbeddings(f.c.regions, f.c.windows, f.c.embeddings, [], opts, f.c.overlap, { frames: f.c.frames, duration: f.c.duration, speech: f.c.speech });
      return diarizationErrorRate(f.ref, r.activity, f.uem);
    });
  return {
    der: rs.reduce((s, d) => s + d.der, 0) / rs.length,
    exact: rs.filter((d) => d.hypSpeakers === d.refSpeakers).length,
    over: rs.filter((d) => d.hypSpeakers > d.refSpeakers).length,
    err: rs.reduce((s, d) => s + Math.abs(d.hypSpeakers - d.refSpeakers), 0) / rs.length,
    counts: rs.map((d) => `${d.hypSpeakers}/${d.refSpeakers}`).join(" "),
  };
}

const grid: EmbeddingDiarizeOptions[] = [{}];
if (estimator === "vbx")
  for (const init of [0.4, 0.5, 0.6])
    for (const fa of [0.1, 0.3, 1])
      for (const fb of [1, 5, 17])
        for (const loopP of [0.5, 0.9]) grid.push({ countEstimator: "vbx", vbInitThreshold: init, vb: { fa, fb, loopP } });
else
  for (const minP of [2, 3, 4])
    for (const normalised of [false, true])
      for (const weighted of [false, true]) for (const maxPShare of [0.25, 0.5]) grid.push({ countEstimator: "eigengap", eigengap: { minP, normalised, weighted, maxPShare } });

const rows = grid.map((opts) => ({ opts, t: score(opts, TUNING_SPLIT), h: score(opts, HELD_OUT_SPLIT) }));
// Chosen on the tuning split only: most exact counts, then lowest mean DER, then fewest over-counts.
rows.sort((a, b) => b.t.exact - a.t.exact || a.t.der - b.t.der || a.t.over - b.t.over);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log("| setting | tuning DER | tuning exact | tuning over | tuning |err| | held-out DER | held-out exact | held-out over | held-out |err| | counts tuning / held-out |");
console.log("|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows)
  console.log(`| ${JSON.stringify(r.opts)} | ${pct(r.t.der)} | ${r.t.exact}/${TUNING_SPLIT.length} | ${r.t.over} | ${r.t.err.toFixed(2)} | ${pct(r.h.der)} | ${r.h.exact}/${HELD_OUT_SPLIT.length} | ${r.h.over} | ${r.h.err.toFixed(2)} | ${r.t.counts} / ${r.h.counts} |`);

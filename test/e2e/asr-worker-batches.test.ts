/** The speech worker's batching of speech regions (asr.py speech_batches), run in the speech runtime's Python. */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { speechPython } from "../../src/inference/speech-runtime/runtime.ts";

const WORKER_DIR = join(import.meta.dir, "../../src/inference/speech-runtime/python");

function batches(regions: [number, number][], totalSamples: number, batchSamples: number): [number, number][][] {
  const code = `import json, sys; sys.path.insert(0, ${JSON.stringify(WORKER_DIR)}); import asr as w; print(json.dumps(w.speech_batches(json.loads(sys.argv[1]), ${totalSamples}, ${batchSamples})))`;
  const r = Bun.spawnSync([speechPython(), "-c", code, JSON.stringify(regions)]);
  if (r.exitCode !== 0) throw new Error(r.stderr.toString());
  return JSON.parse(r.stdout.toString());
}

describe("speech worker batches", () => {
  test("regions are grouped in order into batches of at most the batch length, every sample once", () => {
    // 16 kHz: regions of 1, 2, 3 and 0.5 s, batches of 3 s; the last region runs past the end of the audio.
    const regions: [number, number][] = [[0.5, 1.5], [2, 4], [5, 8], [9.75, 11]];
    const got = batches(regions, 10.25 * 16000, 3 * 16000);
    expect(got).toEqual([
      [[8000, 24000], [32000, 64000]],
      [[80000, 128000]],
      [[156000, 164000]],
    ]);
    for (const b of got) expect(b.reduce((n, [a, z]) => n + z - a, 0)).toBeLessThanOrEqual(3 * 16000);
  });

  test("a region longer than a batch is cut into batch-long pieces", () => {
    expect(batches([[0, 7]], 8 * 16000, 3 * 16000)).toEqual([[[0, 48000]], [[48000, 96000]], [[96000, 112000]]]);
  });
});

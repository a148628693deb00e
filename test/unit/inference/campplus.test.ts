/**
 * The in-process CAM++ graph on a few seconds of the shared phone call: the same audio gives the same
 * embeddings on every run, and int8 D-TDNN weights (measured, not adopted) stay within the tolerance
 * docs/benchmarks/speed.md states. The float graph against the Python worker's network, window by
 * window: test/e2e/speaker-engines.test.ts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { campplusOnnx, CamPlusPlus, type StateDict } from "../../../src/inference/campplus.ts";
import { floatMatMul, int8MatMul } from "../../../src/inference/onnx/quantize.ts";
import { loadOnnxRuntime, type Ort } from "../../../src/inference/onnx/runtime.ts";
import { pcmSource, readWav, type PcmSource } from "../../../src/media/wav.ts";
import { resolveModel } from "../../../src/models/store.ts";
import { cosine } from "../../../src/pipeline/vector-math.ts";
import { describeShared, SHARED_MEDIA } from "../../helpers/shared.ts";

let ort: Ort;
let audio: PcmSource;
const models: CamPlusPlus[] = [];
const open = async (graph: (sd: StateDict) => Uint8Array) => {
  const m = await CamPlusPlus.open(ort, resolveModel("campplus-zh-en"), 1, graph);
  models.push(m);
  return m;
};
afterAll(async () => {
  for (const m of models) await m.close();
});

// The diarizer's 1.5 s windows over 9 s of both voices (one batch of 8 and a remainder), a short one,
// and two long enough (7 s, 4.3 s) for the context pooling to span several 100-frame segments.
const windows: [number, number][] = [...Array.from({ length: 11 }, (_, i): [number, number] => [9 + 0.75 * i, 10.5 + 0.75 * i]), [3.1, 3.6], [12, 19], [20.2, 24.5]];

describeShared("CAM++ in-process, float and int8 weights", () => {
  let float: number[][];
  beforeAll(async () => {
    const loaded = await loadOnnxRuntime();
    if (!loaded.ok) throw new Error(loaded.reason);
    ort = loaded.ort;
    audio = pcmSource(readWav(join(SHARED_MEDIA, "two_speakers_call.wav")));
    float = await (await open((sd) => campplusOnnx(sd))).embed(audio, windows);
  });

  test("float: the same embeddings on every run, from the default graph", async () => {
    expect(await (await open((sd) => campplusOnnx(sd, floatMatMul))).embed(audio, windows)).toEqual(float);
  }, 60_000);

  test("int8 weights: cosine to float >= 0.99 on every window, >= 0.995 on average; the same on a second run", async () => {
    const int8 = await open((sd) => campplusOnnx(sd, int8MatMul));
    const ours = await int8.embed(audio, windows);
    const cos = ours.map((e, i) => cosine(e, float[i]!));
    expect(Math.min(...cos)).toBeGreaterThanOrEqual(0.99);
    expect(cos.reduce((a, b) => a + b, 0) / cos.length).toBeGreaterThanOrEqual(0.995);
    expect(Math.min(...cos)).toBeLessThan(0.99999); // the weights really are int8
    // Two voices: agreement is not a constant output.
    expect(Math.min(...ours.map((e) => cosine(e, ours[0]!)))).toBeLessThan(0.5);
    expect(await int8.embed(audio, windows)).toEqual(ours);
  }, 60_000);
});

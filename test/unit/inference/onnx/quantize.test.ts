/**
 * The int8 weight quantiser (symmetric, one scale per output column) and the DynamicQuantizeMatMul
 * node it feeds, run by the real onnxruntime-node against float MatMul.
 */
import { expect, test } from "bun:test";
import { OnnxGraph } from "../../../../src/inference/onnx/graph.ts";
import { dequantize, floatMatMul, int8MatMul, quantizeColumns, quantizedMatMul, WEIGHT_QMAX } from "../../../../src/inference/onnx/quantize.ts";
import { loadOnnxRuntime } from "../../../../src/inference/onnx/runtime.ts";

/** Deterministic pseudo-random values in [-1, 1) (a fixed LCG, so a failure reproduces). */
function noise(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  });
}

test("weights round-trip within half a step of their own column's scale", () => {
  const rows = 64;
  const cols = 5;
  const w = noise(rows * cols, 1);
  // Columns of very different magnitude: per-column scales keep the small ones precise.
  for (let k = 0; k < rows; k++) {
    w[k * cols + 1]! *= 1e-3;
    w[k * cols + 3]! *= 40;
  }
  const q = quantizeColumns(w, rows, cols);
  const back = dequantize(q);
  for (let n = 0; n < cols; n++) {
    let max = 0;
    for (let k = 0; k < rows; k++) max = Math.max(max, Math.abs(w[k * cols + n]!));
    expect(q.scales[n]).toBeCloseTo(max / WEIGHT_QMAX, 6);
    for (let k = 0; k < rows; k++) {
      expect(Math.abs(back[k * cols + n]! - w[k * cols + n]!)).toBeLessThanOrEqual(q.scales[n]! / 2 + 1e-12);
      expect(Math.abs(q.values[k * cols + n]!)).toBeLessThanOrEqual(WEIGHT_QMAX);
    }
  }
  expect(q.scales[1]! * 1000).toBeLessThan(q.scales[0]! * 2);
  expect(q.scales[3]!).toBeGreaterThan(q.scales[0]! * 20);
  // The largest weight of each column is exactly ±qmax steps.
  for (let n = 0; n < cols; n++) expect(Math.max(...Array.from({ length: rows }, (_, k) => Math.abs(q.values[k * cols + n]!)))).toBe(WEIGHT_QMAX);
});

test("a narrower range (7-bit weights) and an all-zero column", () => {
  const w = new Float32Array([0.4, 0, -1, 0, 0.2, 0]);
  const q = quantizeColumns(w, 3, 2, 63);
  expect(Array.from(q.values)).toEqual([25, 0, -63, 0, 13, 0]);
  expect(q.scales[0]).toBeCloseTo(1 / 63, 7);
  expect(q.scales[1]).toBe(1);
  expect(Array.from(dequantize(q))).toEqual([25, 0, -63, 0, 13, 0].map((v) => Math.fround(v * q.scales[0]!)).map((v, i) => (i % 2 ? 0 : v)));
  expect(() => quantizeColumns(w, 2, 2)).toThrow("6 values are not 2 × 2");
  expect(() => quantizeColumns(w, 3, 2, 200)).toThrow("qmax 200 is outside 1..127");
});

async function runProduct(matmul: typeof floatMatMul, x: Float32Array, w: Float32Array, bias: Float32Array, shape: [number, number, number], cols: number): Promise<Float32Array> {
  const loaded = await loadOnnxRuntime();
  if (!loaded.ok) throw new Error(loaded.reason);
  const g = new OnnxGraph();
  const input = g.input("x", ["batch", "frames", shape[2]]);
  const y = matmul(g, g.node("Relu", [input]), w, shape[2], cols, bias);
  const session = await loaded.ort.InferenceSession.create(g.model(y, "y", ["batch", "frames", cols]), { intraOpNumThreads: 1, executionProviders: ["cpu"] });
  try {
    const out = await session.run({ x: new loaded.ort.Tensor("float32", x, shape) });
    return out.y!.data as Float32Array;
  } finally {
    await session.release();
  }
}

test("DynamicQuantizeMatMul on int8 weights: within 2 % of the float product's range, and the same on every run", async () => {
  const shape: [number, number, number] = [2, 30, 96];
  const cols = 40;
  const x = noise(shape[0] * shape[1] * shape[2], 7);
  const w = noise(shape[2] * cols, 8);
  const bias = noise(cols, 9);
  const ref = await runProduct(floatMatMul, x, w, bias, shape, cols);
  const int8 = await runProduct(int8MatMul, x, w, bias, shape, cols);
  let range = 0;
  let worst = 0;
  for (let i = 0; i < ref.length; i++) {
    range = Math.max(range, Math.abs(ref[i]!));
    worst = Math.max(worst, Math.abs(int8[i]! - ref[i]!));
  }
  expect(worst).toBeGreaterThan(0); // it did quantise
  expect(worst / range).toBeLessThan(0.02);
  expect(Array.from(await runProduct(int8MatMul, x, w, bias, shape, cols))).toEqual(Array.from(int8));
  // Coarser weights land farther off: the quantisation is what the error comes from.
  const coarse = await runProduct(quantizedMatMul(7), x, w, bias, shape, cols);
  let coarseWorst = 0;
  for (let i = 0; i < ref.length; i++) coarseWorst = Math.max(coarseWorst, Math.abs(coarse[i]! - ref[i]!));
  expect(coarseWorst).toBeGreaterThan(worst * 3);
});

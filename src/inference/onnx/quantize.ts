/**
 * int8 weights derived from a verified checkpoint's float weights at load time (nothing quantised is
 * downloaded or cached), and the ONNX Runtime node that multiplies float activations by them. Jobs run
 * float: CAM++ with int8 weights measured worse speaker counts (docs/benchmarks/speed.md), so this is
 * what `scripts/bench/speaker-models.ts` re-measures it with, on another CPU or ONNX Runtime.
 *
 * Weights are symmetric per output channel (one scale per column of the [K, N] matrix, zero point 0),
 * which keeps a channel with small weights from losing its precision to a channel with large ones, and
 * use the full -127..127. (x86's u8s8 kernels without VNNI, AVX2 and AVX-512 before Ice Lake, add pairs
 * of uint8 × int8 products in a saturating int16, so on those CPUs a sum can clip where both weights of
 * a pair are near ±127 and the activations near their maximum, as with ONNX Runtime's own quantiser;
 * 7-bit weights (qmax 63) never clip but measured worse: docs/benchmarks/speed.md.)
 */
import { MS_DOMAIN, type OnnxGraph } from "./graph.ts";

/** Largest magnitude of a quantised weight. */
export const WEIGHT_QMAX = 127;

export interface QuantizedMatrix {
  /** [K, N] row-major, each column scaled by its own `scales[n]`. */
  values: Int8Array;
  /** One per column: a weight is `values[k * N + n] * scales[n]`. */
  scales: Float32Array;
  rows: number;
  cols: number;
}

/** Symmetric per-column quantisation of the [rows, cols] row-major matrix `w`. */
export function quantizeColumns(w: Float32Array, rows: number, cols: number, qmax = WEIGHT_QMAX): QuantizedMatrix {
  if (w.length !== rows * cols) throw new Error(`quantizeColumns: ${w.length} values are not ${rows} × ${cols}`);
  if (!(qmax >= 1 && qmax <= 127)) throw new Error(`quantizeColumns: qmax ${qmax} is outside 1..127`);
  const scales = new Float32Array(cols);
  for (let k = 0; k < rows; k++) {
    for (let n = 0; n < cols; n++) scales[n] = Math.max(scales[n]!, Math.abs(w[k * cols + n]!));
  }
  // An all-zero column keeps scale 1 (any scale represents it exactly); the others map their largest weight to ±qmax.
  for (let n = 0; n < cols; n++) scales[n] = scales[n]! > 0 ? scales[n]! / qmax : 1;
  const values = new Int8Array(rows * cols);
  for (let k = 0; k < rows; k++) {
    for (let n = 0; n < cols; n++) {
      const q = Math.round(w[k * cols + n]! / scales[n]!);
      values[k * cols + n] = Math.max(-qmax, Math.min(qmax, q));
    }
  }
  return { values, scales, rows, cols };
}

/** The float weights a quantised matrix stands for. */
export function dequantize(q: QuantizedMatrix): Float32Array {
  const out = new Float32Array(q.rows * q.cols);
  for (let k = 0; k < q.rows; k++) {
    for (let n = 0; n < q.cols; n++) out[k * q.cols + n] = q.values[k * q.cols + n]! * q.scales[n]!;
  }
  return out;
}

/** `x` (..., K) times a [K, N] matrix (float), plus an optional bias [N]; returns the result's name. */
export type MatMulOp = (g: OnnxGraph, x: string, w: Float32Array, rows: number, cols: number, bias?: Float32Array) => string;

/** float32 MatMul (and Add for the bias): the reference the int8 one is held to. */
export const floatMatMul: MatMulOp = (g, x, w, rows, cols, bias) => {
  const y = g.node("MatMul", [x, g.constant(w, [rows, cols])]);
  return bias ? g.node("Add", [y, g.constant(bias, [cols])]) : y;
};

/**
 * The same product with int8 weights: ONNX Runtime's DynamicQuantizeMatMul quantises `x` to uint8
 * per tensor on every run (its own minimum and maximum, so nothing is calibrated) and accumulates in
 * int32 before scaling back to float and adding the bias.
 */
export function quantizedMatMul(qmax = WEIGHT_QMAX): MatMulOp {
  return (g, x, w, rows, cols, bias) => {
    const q = quantizeColumns(w, rows, cols, qmax);
    const inputs = [x, g.constant(q.values, [rows, cols]), g.constant(q.scales, [cols])];
    // The zero point is left out (""): symmetric weights have none.
    if (bias) inputs.push("", g.constant(bias, [cols]));
    return g.node("DynamicQuantizeMatMul", inputs, {}, MS_DOMAIN);
  };
}

/** int8 weights over -127..127. */
export const int8MatMul: MatMulOp = quantizedMatMul();

/**
 * Full-covariance Gaussians over feature frames: the speaker model of the diarizer, and the BIC test
 * that decides whether two clusters are one speaker.
 */
export interface Gaussian {
  mean: Float64Array;
  /** Lower Cholesky factor of the covariance, row-major d×d. */
  chol: Float64Array;
  logDet: number;
  n: number;
}

const RIDGE = 1e-3;

function cholesky(a: Float64Array, d: number): Float64Array {
  const l = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * d + j]!;
      for (let k = 0; k < j; k++) s -= l[i * d + k]! * l[j * d + k]!;
      l[i * d + j] = i === j ? Math.sqrt(Math.max(s, 1e-9)) : s / l[j * d + j]!;
    }
  }
  return l;
}

/** Sufficient statistics so clusters can be merged without revisiting frames. */
export interface Stats {
  n: number;
  sum: Float64Array;
  /** Sum of outer products, row-major d×d. */
  sq: Float64Array;
}

export function emptyStats(d: number): Stats {
  return { n: 0, sum: new Float64Array(d), sq: new Float64Array(d * d) };
}

export function addFrame(s: Stats, x: ArrayLike<number>): void {
  const d = s.sum.length;
  s.n++;
  for (let i = 0; i < d; i++) {
    s.sum[i]! += x[i]!;
    for (let j = 0; j <= i; j++) s.sq[i * d + j]! += x[i]! * x[j]!;
  }
}

export function mergeStats(a: Stats, b: Stats): Stats {
  return { n: a.n + b.n, sum: a.sum.map((v, i) => v + b.sum[i]!), sq: a.sq.map((v, i) => v + b.sq[i]!) };
}

export function fitGaussian(s: Stats): Gaussian {
  const d = s.sum.length;
  const mean = s.sum.map((v) => v / Math.max(1, s.n));
  const cov = new Float64Array(d * d);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j <= i; j++) {
      const v = s.sq[i * d + j]! / Math.max(1, s.n) - mean[i]! * mean[j]!;
      cov[i * d + j] = v;
      cov[j * d + i] = v;
    }
    cov[i * d + i]! += RIDGE;
  }
  const chol = cholesky(cov, d);
  let logDet = 0;
  for (let i = 0; i < d; i++) logDet += 2 * Math.log(chol[i * d + i]!);
  return { mean, chol, logDet, n: s.n };
}

export function logLikelihood(g: Gaussian, x: ArrayLike<number>): number {
  const d = g.mean.length;
  const y = new Float64Array(d);
  let q = 0;
  for (let i = 0; i < d; i++) {
    let s = x[i]! - g.mean[i]!;
    for (let k = 0; k < i; k++) s -= g.chol[i * d + k]! * y[k]!;
    y[i] = s / g.chol[i * d + i]!;
    q += y[i]! * y[i]!;
  }
  return -0.5 * (q + g.logDet + d * Math.log(2 * Math.PI));
}

/**
 * ΔBIC of modelling two clusters with one Gaussian instead of two; negative means "same speaker".
 * lambda weighs the model-size penalty (1 is the textbook value).
 */
export function deltaBic(a: Stats, b: Stats, lambda: number): number {
  const d = a.sum.length;
  const m = mergeStats(a, b);
  const gain = 0.5 * (m.n * fitGaussian(m).logDet - a.n * fitGaussian(a).logDet - b.n * fitGaussian(b).logDet);
  const penalty = 0.5 * lambda * (d + (d * (d + 1)) / 2) * Math.log(m.n);
  return gain - penalty;
}

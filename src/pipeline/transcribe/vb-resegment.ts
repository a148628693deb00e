/**
 * A VBx-style count (Landini et al. 2022, "Bayesian HMM clustering of x-vector sequences (VBx) in
 * speaker diarization"): start from too many clusters, then let variational Bayes inference over a
 * hidden Markov model of the windows in time order give each speaker a prior weight; speakers the data
 * do not need lose their weight and drop out, and the count is the speakers left.
 *
 * VBx proper works in a PLDA space trained on thousands of speakers. None is available here, so the
 * space is estimated per recording: the embeddings' principal directions, scaled so the spread inside
 * the initial clusters is 1 (the within-speaker covariance), with the spread of the rest along each
 * direction as the between-speaker variance. Measured against the average-linkage threshold in
 * docs/benchmarks/speakers.md (`countEstimator: "vbx"`); no random part, so a recording always gives
 * the same count.
 */
import { symmetricEigen } from "./spectral-count.ts";

export interface VbOptions {
  /** Acoustic scaling of the likelihoods (VBx's Fa): below 1 softens windows that overlap in time. */
  fa: number;
  /** Speaker regularisation (VBx's Fb): higher pulls every speaker's model towards the shared mean, so fewer survive. */
  fb: number;
  /** Probability of staying with the same speaker from one window to the next (0.75 s hop). */
  loopP: number;
  /** Most principal directions kept (fewer when there are few windows). */
  dims: number;
  /** Iterations of the VB update at most. */
  maxIterations: number;
  /** A speaker whose prior weight falls below this is gone. */
  minWeight: number;
}

/** Chosen on the tuning split (scripts/bench/count-grid.ts); VBx's own are Fa 0.3, Fb 17, loopP 0.99 at a 0.25 s step. */
export const VB_DEFAULTS: VbOptions = { fa: 1, fb: 17, loopP: 0.5, dims: 16, maxIterations: 20, minWeight: 1e-3 };

/**
 * The recording's own PLDA-like space: centred, projected on the top principal directions, scaled so the
 * average within-cluster variance per direction is 1, and the between-cluster variance per direction
 * (`phi`, at least a small floor so every direction still says something).
 */
export function recordingSpace(vecs: ArrayLike<number>[], labels: number[], maxDims: number): { x: number[][]; phi: number[] } {
  const n = vecs.length;
  const dim = vecs[0]!.length;
  const mean = new Float64Array(dim);
  for (const v of vecs) for (let d = 0; d < dim; d++) mean[d] = mean[d]! + v[d]! / n;
  const centred = vecs.map((v) => Array.from({ length: dim }, (_, d) => v[d]! - mean[d]!));
  // Principal directions from the n x n Gram matrix (n is a few hundred at most, the dimension 192 or more).
  const gram = centred.map((a) => centred.map((b) => a.reduce((s, x, d) => s + x * b[d]!, 0)));
  const { values, vectors } = symmetricEigen(gram);
  const keep = Math.max(1, Math.min(maxDims, n - 1));
  const x: number[][] = centred.map(() => []);
  for (let j = n - 1; j >= n - keep && j >= 0; j--) {
    if (values[j]! <= 1e-12) break;
    // Projection of item i on principal direction j is sqrt(lambda_j) * u_ij.
    const s = Math.sqrt(values[j]!);
    for (let i = 0; i < n; i++) x[i]!.push(s * vectors[i]![j]!);
  }
  const k = x[0]!.length;
  const groups = [...new Set(labels)];
  const within = new Float64Array(k);
  const between = new Float64Array(k);
  for (const g of groups) {
    const members = x.filter((_, i) => labels[i] === g);
    for (let d = 0; d < k; d++) {
      const m = members.reduce((s, v) => s + v[d]!, 0) / members.length;
      for (const v of members) within[d] = within[d]! + (v[d]! - m) ** 2;
      between[d] = between[d]! + members.length * m * m;
    }
  }
  // One within-speaker scale for every direction (an isotropic guess: too few windows for more).
  const sigma2 = Math.max(1e-9, within.reduce((s, v) => s + v, 0) / Math.max(1, n - groups.length) / Math.max(1, k));
  const scaled = x.map((v) => v.map((c) => c / Math.sqrt(sigma2)));
  const phi = Array.from(between, (b) => Math.max(1e-2, b / n / sigma2));
  return { x: scaled, phi };
}

const logSumExp = (a: number[]) => {
  const m = Math.max(...a);
  return m === -Infinity ? m : m + Math.log(a.reduce((s, v) => s + Math.exp(v - m), 0));
};

/**
 * Variational Bayes over the windows in time order, started from `init` (a label per window, several
 * clusters too many is fine). Returns the speaker per window (0..k-1 in order of first window: each window
 * goes to the speaker most likely for it among those whose prior weight stayed at minWeight or more; two
 * starting clusters of one voice end with the same model, and every window then takes the first of them).
 */
export function vbResegment(vecs: ArrayLike<number>[], init: number[], opts: Partial<VbOptions> = {}): number[] {
  const o = { ...VB_DEFAULTS, ...opts };
  const n = vecs.length;
  if (n === 0) return [];
  const ids = [...new Set(init)];
  const S = ids.length;
  if (n < 3 || S === 1) return init.map(() => 0);
  const { x, phi } = recordingSpace(vecs, init, o.dims);
  const D = phi.length;
  const rho = x.map((v) => v.map((c, d) => c * Math.sqrt(phi[d]!)));
  const G = x.map((v) => -0.5 * (v.reduce((s, c) => s + c * c, 0) + D * Math.log(2 * Math.PI)));
  let gamma: number[][] = init.map((l) => ids.map((id) => (id === l ? 1 : 0)));
  let pi = ids.map((id) => init.filter((l) => l === id).length / n);
  const ratio = o.fa / o.fb;
  for (let it = 0; it < o.maxIterations; it++) {
    // Speaker models from the current responsibilities.
    const logp = Array.from({ length: n }, () => new Array<number>(S).fill(0));
    for (let s = 0; s < S; s++) {
      const N = gamma.reduce((acc, g) => acc + g[s]!, 0);
      const invL = phi.map((p) => 1 / (1 + ratio * N * p));
      const alpha = phi.map((_, d) => ratio * invL[d]! * gamma.reduce((acc, g, t) => acc + g[s]! * rho[t]![d]!, 0));
      const penalty = phi.reduce((acc, p, d) => acc + (invL[d]! + alpha[d]! ** 2) * p, 0);
      for (let t = 0; t < n; t++) logp[t]![s] = o.fa * (rho[t]!.reduce((acc, r, d) => acc + r * alpha[d]!, 0) - 0.5 * penalty + G[t]!);
    }
    // Forward-backward: stay with probability loopP, else move to a speaker drawn from the priors.
    const logTr = (from: number, to: number) => Math.log((from === to ? o.loopP : 0) + (1 - o.loopP) * pi[to]!);
    const fwd = logp.map(() => new Array<number>(S).fill(-Infinity));
    const bwd = logp.map(() => new Array<number>(S).fill(0));
    for (let s = 0; s < S; s++) fwd[0]![s] = Math.log(pi[s]!) + logp[0]![s]!;
    for (let t = 1; t < n; t++) for (let s = 0; s < S; s++) fwd[t]![s] = logp[t]![s]! + logSumExp(fwd[t - 1]!.map((f, r) => f + logTr(r, s)));
    for (let t = n - 2; t >= 0; t--) for (let s = 0; s < S; s++) bwd[t]![s] = logSumExp(bwd[t + 1]!.map((b, r) => b + logTr(s, r) + logp[t + 1]![r]!));
    const total = logSumExp(fwd[n - 1]!);
    const next = fwd.map((f, t) => f.map((v, s) => Math.exp(v + bwd[t]![s]! - total)));
    // The prior weights: where speakers are, as VBx's update, summed over the windows.
    const sums = ids.map((_, s) => next.reduce((acc, g) => acc + g[s]!, 0));
    const newPi = sums.map((v) => v / n);
    const moved = next.reduce((m, g, t) => Math.max(m, ...g.map((v, s) => Math.abs(v - gamma[t]![s]!))), 0);
    gamma = next;
    pi = newPi.map((p) => Math.max(p, 1e-300));
    if (moved < 1e-4) break;
  }
  const alive = pi.map((p, s) => [p, s] as const).filter(([p]) => p >= o.minWeight);
  const hard = gamma.map((g) => alive.reduce((best, [, s]) => (g[s]! > g[best]! ? s : best), alive[0]![1]));
  const order = [...new Set(hard)];
  return hard.map((s) => order.indexOf(s));
}

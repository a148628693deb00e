/** A small closed-loop HTTP load generator: `concurrency` workers, each sending back to back. */
export interface LoadResult {
  requests: number;
  errors: number;
  /** Status and body of the first non-200 answer, to say why a run failed. */
  firstError?: string;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
}

export async function runLoad(next: (i: number) => Request, opts: { concurrency: number; seconds: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  let i = 0;
  const end = performance.now() + opts.seconds * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const res = await fetch(next(i++));
        const body = await res.text();
        if (res.status !== 200) {
          errors++;
          firstError ??= `${res.status} ${body.slice(0, 300)}`;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return { requests: latencies.length, errors, firstError, seconds, rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99) };
}

/** The value after `--name` on the command line, if given. */
export function stringFlag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** A numeric `--name N` option. */
export function numberFlag(name: string, fallback: number): number {
  const v = stringFlag(name);
  return v === undefined ? fallback : Number(v);
}

export function table(rows: Record<string, string | number>[]): string {
  const cols = Object.keys(rows[0]!);
  const cell = (v: string | number) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]!).length)));
  const line = (vals: string[]) => "| " + vals.map((v, j) => v.padEnd(widths[j]!)).join(" | ") + " |";
  return [line(cols), line(widths.map((w) => "-".repeat(w))), ...rows.map((r) => line(cols.map((c) => cell(r[c]!))))].join("\n");
}

export const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

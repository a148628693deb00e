/**
 * Waits for the state a test is about, not for a side effect that precedes it: `read` is called
 * until `done` holds for its value (or the time runs out, with the last value in the error).
 */
export async function eventually<T>(read: () => T | Promise<T>, done: (value: T) => boolean, opts: { timeoutMs?: number; what?: string } = {}): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? "a state"}; last seen: ${JSON.stringify(value)?.slice(0, 500)}`);
    await Bun.sleep(50);
  }
}

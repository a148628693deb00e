/**
 * The one clock. Everything that reads time or waits goes through a Clock so tests can move time:
 * sandbox delays, webhook retries, the stall watchdog, credit expiry.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to. */
export class ManualClock implements Clock {
  constructor(private t: number = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}

export const isoUtc = (ms: number): string => new Date(ms).toISOString();
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

import type { Clock } from "../clock.ts";
import { log } from "../log.ts";

/**
 * Runs a step now, then again when the next piece of work is due (asked of the database after each
 * step), at most `maxIdleMs` apart; `wake()` runs it at once. Shared by the job scheduler and the
 * webhook delivery worker, so neither polls faster than its work needs.
 */
export class Pacer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;

  constructor(
    private readonly name: string,
    private readonly clock: Clock,
    private readonly step: () => void | Promise<void>,
    private readonly nextDueAt: () => number | undefined,
    private readonly maxIdleMs = 1000,
  ) {}

  start(): void {
    this.running = true;
    this.schedule(0);
  }

  wake(): void {
    if (this.running) this.schedule(0);
  }

  stop(): void {
    this.running = false;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      try {
        const r = this.step();
        if (r instanceof Promise) r.catch((err) => log.error(`${this.name} failed`, { error: String(err) }));
      } catch (err) {
        log.error(`${this.name} failed`, { error: String(err) });
      }
      if (!this.running) return;
      const next = this.nextDueAt();
      this.schedule(next === undefined ? this.maxIdleMs : Math.max(1, Math.min(this.maxIdleMs, next - this.clock.now())));
    }, delayMs);
  }
}

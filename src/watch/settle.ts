/** What the settle check compares between two looks at a file. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
}

interface Sighting extends FileStamp {
  since: number;
  looks: number;
}

/**
 * Decides when a file has finished copying without any help from the copier: its size and mtime
 * must read the same on at least two looks spanning the settle interval. Any change starts the
 * wait again, so a copy that pauses for less than the interval is never taken mid-way. Pure state
 * (the caller supplies the clock), so the rule is tested without a filesystem.
 */
export class SettleTracker {
  private readonly seen = new Map<string, Sighting>();

  constructor(private readonly settleMs: number) {}

  /** Records a look at `name`; true when it has been unchanged for the settle interval. */
  observe(name: string, stamp: FileStamp, now: number): boolean {
    const prior = this.seen.get(name);
    if (!prior || prior.size !== stamp.size || prior.mtimeMs !== stamp.mtimeMs) {
      this.seen.set(name, { ...stamp, since: now, looks: 1 });
      return false;
    }
    prior.looks++;
    return prior.looks >= 2 && now - prior.since >= this.settleMs;
  }

  /** Forgets a file (taken, gone, or to be looked at afresh). */
  forget(name: string): void {
    this.seen.delete(name);
  }

  /** Forgets every file not in `present` (deleted or renamed since the last scan). */
  retain(present: Set<string>): void {
    for (const name of this.seen.keys()) if (!present.has(name)) this.seen.delete(name);
  }
}

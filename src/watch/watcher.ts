import { type FSWatcher, readdirSync, statSync, watch } from "node:fs";
import type { Scope } from "../accounts/scope.ts";
import type { JobOptions } from "../jobs/schema.ts";
import { newId } from "../ids.ts";
import type { PresentContext } from "../jobs/present.ts";
import { log } from "../log.ts";
import { ingestFile, type IngestDeps } from "./ingest.ts";
import { isWatchableName } from "./names.ts";
import { OUTPUT_FOLDER, removeOutputLeftovers, writeJobFolder } from "./outputs.ts";
import { SettleTracker, type FileStamp } from "./settle.ts";
import { endedWithoutOutput, markOutputWritten, settledVersions, versionKey } from "./store.ts";

export interface FolderWatcherOptions extends IngestDeps {
  /** The watched folder, as a real path (the dedupe key must not depend on how it was named). */
  folder: string;
  scope: Scope;
  options: JobOptions;
  present: PresentContext;
  settleMs: number;
  /** Called when a job was made, so the scheduler starts it without waiting for its next tick. */
  onJobs(): void;
}

/** A file refused by billing is tried again after this long (the wallet may have been topped up). */
export const REFUSED_RETRY_MS = 60_000;

/**
 * Watches one folder: turns each media file that has finished copying into a job, once, and
 * writes each ended job's results to DIR/clipyard/<name>/. fs.watch only makes it prompt; a
 * periodic rescan makes it correct on filesystems whose events are lost (network mounts, some
 * containers). All durable state is in the database, so a restart resumes where the last run
 * stopped: files already taken are skipped, and results not yet written are written.
 */
export class FolderWatcher {
  private readonly settle: SettleTracker;
  private readonly refusedUntil = new Map<string, number>();
  private events: FSWatcher | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private stopped = false;

  constructor(private readonly opts: FolderWatcherOptions) {
    this.settle = new SettleTracker(opts.settleMs);
  }

  /** Time between two scans: often enough that a settled file waits at most half an interval more. */
  get scanMs(): number {
    return Math.min(5000, Math.max(200, this.opts.settleMs / 2));
  }

  start(): void {
    removeOutputLeftovers(this.opts.folder);
    try {
      this.events = watch(this.opts.folder, () => this.kick());
      this.events.on("error", (err) => log.warn("watch events stopped; rescans continue", { folder: this.opts.folder, error: String(err) }));
    } catch (err) {
      log.warn("no file events for this folder; relying on rescans", { folder: this.opts.folder, error: String(err) });
    }
    this.timer = setInterval(() => this.kick(), this.scanMs);
    this.kick();
  }

  /** Scans now, or right after the scan in progress. */
  kick(): void {
    if (this.stopped) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = this.scan()
      .catch((err) => log.error("watch scan failed", { folder: this.opts.folder, error: String(err) }))
      .finally(() => {
        this.scanning = undefined;
        if (this.rescan) {
          this.rescan = false;
          this.kick();
        }
      });
  }

  /** One pass: results of ended jobs first (they are quick), then new files. */
  async scan(): Promise<void> {
    this.writeResults();
    const { db, folder, clock } = this.opts;
    const settled = settledVersions(db, folder);
    const names = readdirSync(folder, { withFileTypes: true })
      .filter((e) => e.isFile() && e.name !== OUTPUT_FOLDER && isWatchableName(e.name))
      .map((e) => e.name);
    this.settle.retain(new Set(names));
    for (const name of names) {
      if (this.stopped) return;
      let stamp: FileStamp;
      try {
        const s = statSync(`${folder}/${name}`);
        stamp = { size: s.size, mtimeMs: Math.trunc(s.mtimeMs) };
      } catch {
        continue; // removed since the listing
      }
      const key = versionKey(name, stamp);
      if (settled.has(key) || (this.refusedUntil.get(key) ?? 0) > clock.now()) continue;
      if (!this.settle.observe(name, stamp, clock.now())) continue;
      this.settle.forget(name);
      await this.take(name, stamp, key);
    }
  }

  private async take(name: string, stamp: FileStamp, key: string): Promise<void> {
    const outcome = await ingestFile(this.opts, this.opts.scope, this.opts.options, { folder: this.opts.folder, name, stamp }, newId("req"));
    if (outcome.kind === "job") {
      log.info("watch folder made a job", { file: name, job: outcome.jobId });
      this.opts.onJobs();
    } else if (outcome.kind === "skipped") {
      log.warn("watch folder skipped a file", { file: name, reason: outcome.reason });
    } else if (outcome.kind === "refused") {
      log.warn("watch folder job refused; will retry", { file: name, problem: outcome.problem, retryInSeconds: REFUSED_RETRY_MS / 1000 });
      this.refusedUntil.set(key, this.opts.clock.now() + REFUSED_RETRY_MS);
    }
  }

  private writeResults(): void {
    const { db, folder, clock, dataDir, present } = this.opts;
    for (const { file, job } of endedWithoutOutput(db, folder)) {
      const at = writeJobFolder({ dataDir, present, watchDir: folder, name: file.name, job });
      markOutputWritten(db, file, clock.now());
      log.info("watch folder wrote results", { file: file.name, job: job.id, status: job.status, at });
    }
  }

  /** Stops watching; waits for the scan in progress (a copy into uploads/ may be under way). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.events?.close();
    clearInterval(this.timer);
    await this.scanning;
  }
}

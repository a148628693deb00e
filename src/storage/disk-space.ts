import { statfsSync } from "node:fs";
import { ApiError } from "../errors.ts";

/** The smallest reserve kept free on the data disk when CLIPYARD_DISK_RESERVE_BYTES is unset. */
export const MIN_DISK_RESERVE_BYTES = 1024 ** 3;
/** The reserve's share of the disk when that is larger than MIN_DISK_RESERVE_BYTES. */
export const DISK_RESERVE_SHARE = 0.05;
/** The default reserve stops growing here: on a 4 TB disk 5 % would turn away uploads with 190 GB free. */
export const MAX_DEFAULT_DISK_RESERVE_BYTES = 10 * 1024 ** 3;

export interface DiskSpace {
  /** Bytes an unprivileged writer may still use (statfs bavail: root's reserved blocks excluded). */
  free: number;
  total: number;
  /** Bytes kept free: uploads and new jobs are refused once `free` would fall below it. */
  reserve: number;
}

/**
 * Free space on the filesystem holding `dir`, and the reserve kept on it. Unset, the reserve is
 * max(1 GiB, 5 % of the disk, at most 10 GiB): 1 GiB is about what one running job writes beside its
 * source (16 kHz WAV of a 4-hour source is 460 MB, plus renders and exports), so jobs already running
 * can finish and SQLite can still grow its WAL; 5 % scales that with disks where other things (several
 * workers, the OS, logs) write too; past 10 GiB it would only turn work away.
 */
export function diskSpace(dir: string, reserveSetting?: number): DiskSpace {
  const s = statfsSync(dir);
  const total = s.blocks * s.bsize;
  const free = s.bavail * s.bsize;
  return { free, total, reserve: reserveSetting ?? defaultReserve(total) };
}

export function defaultReserve(totalBytes: number): number {
  return Math.max(MIN_DISK_RESERVE_BYTES, Math.min(Math.ceil(totalBytes * DISK_RESERVE_SHARE), MAX_DEFAULT_DISK_RESERVE_BYTES));
}

/** True for a write that failed because the disk (or a quota on it) is full. */
export function isOutOfSpace(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT") return true;
    const message = e instanceof Error ? e.message : typeof e === "string" ? e : "";
    // Tools (ffmpeg, the speech runtime) report it only in their output.
    if (/ENOSPC|No space left on device|Disk quota exceeded/i.test(message)) return true;
    e = e instanceof Error ? e.cause : undefined;
  }
  return false;
}

/**
 * The data disk's free-space reserve as a gate: work that would write to the disk (an upload's
 * bytes, a new job) asks first and is refused with insufficient_storage once free space, less what
 * it is about to write, would fall under the reserve. Jobs already running keep the reserve to finish.
 */
export class DiskReserve {
  constructor(
    private readonly dataDir: string,
    private readonly reserveSetting?: number,
  ) {}

  now(): DiskSpace {
    return diskSpace(this.dataDir, this.reserveSetting);
  }

  /** Throws insufficient_storage unless `incoming` more bytes leave the reserve free. */
  require(incoming = 0): void {
    const { free, reserve } = this.now();
    if (free - incoming >= reserve) return;
    throw insufficientStorage(
      incoming > 0
        ? `The appliance's data disk has ${free} bytes free and keeps ${reserve} in reserve, so it cannot take ${incoming} more; try again once space is freed.`
        : `The appliance's data disk is down to ${free} free bytes, under its ${reserve}-byte reserve; try again once space is freed.`,
    );
  }
}

export function insufficientStorage(message = "The appliance's data disk is full; try again once space is freed."): ApiError {
  return new ApiError("insufficient_storage", message);
}

import { existsSync } from "node:fs";
import type { Db } from "./handle.ts";

/**
 * SQLite in WAL mode keeps the WAL-index header in shared memory (the `-shm` file beside the
 * database, mapped by every connection of every process), and every commit, whoever makes it,
 * rewrites it before the commit returns: the frame count, the running checksum of the frames, and
 * the salts, which change when the WAL starts over (https://www.sqlite.org/walformat.html, "The
 * WAL-Index Header"). A new read transaction takes its snapshot from this header. So while its
 * bytes are the same, nothing has been committed, and a value read earlier is still what a read now
 * would return. Comparing them is twelve memory loads: no statement, no lock, no system call.
 */
const HEADER_WORDS = 12; // the first copy of the header: 48 bytes
const WAL_INDEX_VERSION = 3007000;

interface Watch {
  client: Db["$client"];
  header: Int32Array;
  seen: Int32Array;
  epoch: number;
}

const watches = new WeakMap<Db, Watch | null>();

function watch(db: Db): Watch | null {
  let w = watches.get(db);
  if (w !== undefined) return w;
  w = null;
  const client = db.$client;
  // PostgreSQL's client has no file name; an in-memory database has no shared memory.
  const file = (client as { filename?: string }).filename;
  if (typeof file === "string" && file !== "" && file !== ":memory:" && existsSync(`${file}-shm`)) {
    // Mapped shared: the same pages SQLite maps, so a commit by any process shows at once. The file
    // is never truncated or removed while a connection to the database is open (SQLite's own
    // dead-man-switch lock, which this process's connection holds); watching stops when it closes.
    try {
      const bytes = Bun.mmap(`${file}-shm`, { shared: true, size: HEADER_WORDS * 4 });
      const header = new Int32Array(bytes.buffer, bytes.byteOffset, HEADER_WORDS);
      // A header this code does not know (another format, not initialised yet): no watching.
      if (bytes.length === HEADER_WORDS * 4 && Atomics.load(header, 0) === WAL_INDEX_VERSION) w = { client, header, seen: new Int32Array(HEADER_WORDS), epoch: 0 };
    } catch {
      // Not mappable here: read every time.
    }
  }
  watches.set(db, w);
  return w;
}

/**
 * A number that stays the same exactly while nothing has been committed to the database, by any
 * connection of any process. A value read from the database after `commitEpoch(db)` returned e is
 * still current while commitEpoch(db) keeps returning e, so it may be answered from memory: read the
 * epoch first, then the database, and label what was read with that epoch. undefined where no such
 * header can be read (PostgreSQL, a closed database, inside a transaction of this connection, whose
 * snapshot may be older than the header): then read every time.
 */
export function commitEpoch(db: Db): number | undefined {
  const w = watch(db);
  if (!w) return undefined;
  try {
    // Also what tells a closed database: it throws.
    if (w.client.inTransaction) return undefined;
  } catch {
    return undefined;
  }
  let changed = false;
  for (let i = 0; i < HEADER_WORDS; i++) {
    const word = Atomics.load(w.header, i);
    if (word !== w.seen[i]) {
      w.seen[i] = word;
      changed = true;
    }
  }
  if (changed) w.epoch++;
  return w.epoch;
}

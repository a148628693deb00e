/**
 * Parses one feed document off the main thread: a back catalogue of tens of thousands of items takes
 * seconds of CPU, which on the main thread would stall every request the appliance serves. Posts back
 * only the newest `maxItems` episodes, so the main thread never holds the whole list.
 */
import { getPriority, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { newestEpisodes, NotAFeed } from "./parse.ts";

// On Linux this lowers this thread only (setpriority of the calling thread): on a machine with few
// cores the thread serving requests goes first, and the parse takes what is left.
try {
  setPriority(Math.min(19, getPriority() + 10));
} catch {
  // Not permitted, or not supported: the parse runs at the process's priority.
}

const { body, maxItems } = workerData as { body: Uint8Array; maxItems: number };
try {
  parentPort!.postMessage({ episodes: newestEpisodes(new TextDecoder().decode(body), maxItems) });
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message, notAFeed: err instanceof NotAFeed });
}

/**
 * Parses one feed document off the main thread: a back catalogue of tens of thousands of items takes
 * seconds of CPU, which on the main thread would stall every request the appliance serves. Posts back
 * only the newest `maxItems` episodes, so the main thread never holds the whole list. The thread is
 * left at the process's priority: lowered (nice +10) it held the main thread up longer, not shorter
 * (event-loop stalls up to 970 ms instead of about 200 ms on an overloaded 2-core machine),
 * presumably while the main thread waited on something the two threads share.
 */
import { parentPort, workerData } from "node:worker_threads";
import { newestEpisodes, NotAFeed } from "./parse.ts";

const { body, maxItems } = workerData as { body: Uint8Array; maxItems: number };
try {
  parentPort!.postMessage({ episodes: newestEpisodes(new TextDecoder().decode(body), maxItems) });
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message, notAFeed: err instanceof NotAFeed });
}

import { Worker } from "node:worker_threads";
import { COMPILED } from "../config.ts";
import { NotAFeed, type Episode } from "./parse.ts";

// The compiled binary embeds the worker as a second entry point (scripts/build-binary.sh).
const WORKER_ENTRY = COMPILED ? new URL("./feeds/parse-worker.js", import.meta.url) : new URL("./parse-worker.ts", import.meta.url);

/** Longest a parse may take (a 10 MiB feed takes about 8 s on a busy 2-core machine, at low priority longer); a document that takes longer fails the poll. */
export const PARSE_TIMEOUT_MS = 120_000;

/**
 * parseEpisodes on a worker thread (UTF-8 bytes in), keeping the newest `maxItems` episodes: the event loop serves
 * requests meanwhile. Rejects with NotAFeed for a document that is not RSS or Atom (or too slow to parse).
 */
export function parseNewestEpisodes(body: Uint8Array, maxItems: number): Promise<Episode[]> {
  // The bytes move to the thread (transferred, not copied) and are decoded there: a copy or a decode
  // of a document of several MiB would itself hold the event loop.
  const bytes = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : body.slice();
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_ENTRY, { workerData: { body: bytes, maxItems }, transferList: [bytes.buffer as ArrayBuffer] });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    // After its answer the thread ends by itself, tearing its heap down on its own time; terminate()
    // from here would make this thread wait for that.
    const timer = setTimeout(() => {
      void worker.terminate();
      settle(() => reject(new NotAFeed(`the feed took more than ${PARSE_TIMEOUT_MS / 1000} s to parse`)));
    }, PARSE_TIMEOUT_MS);
    worker.on("message", (m: { episodes?: Episode[]; error?: string; notAFeed?: boolean }) =>
      settle(() => (m.episodes ? resolve(m.episodes) : reject(m.notAFeed ? new NotAFeed(m.error!) : new Error(`feed parser: ${m.error}`)))),
    );
    worker.on("error", (err) => settle(() => reject(err)));
    worker.on("exit", (code) => settle(() => reject(new Error(`feed parser thread exited (${code}) without an answer`))));
  });
}

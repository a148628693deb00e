/**
 * Worker thread for MiniLmEmbedder: loads its own copy of the model and embeds the texts it is sent.
 * Messages in: { type: "load", model, dir } then { type: "embed", id, texts }.
 * Messages out: { type: "ready" } | { type: "error", id?, message } | { type: "vectors", id, vectors }.
 */
import { MiniLmEmbedder } from "./embedder-minilm.ts";

declare const self: Worker;
let embedder: MiniLmEmbedder | null = null;

self.onmessage = async (e: MessageEvent) => {
  const msg = e.data as { type: "load"; model: string; dir: string } | { type: "embed"; id: number; texts: string[] };
  try {
    if (msg.type === "load") {
      embedder = new MiniLmEmbedder(msg.model, msg.dir);
      self.postMessage({ type: "ready" });
      return;
    }
    if (!embedder) throw new Error("embed before load");
    const vectors = await embedder.embed(msg.texts);
    self.postMessage({ type: "vectors", id: msg.id, vectors });
  } catch (err) {
    self.postMessage({ type: "error", id: "id" in msg ? msg.id : undefined, message: err instanceof Error ? err.message : String(err) });
  }
};

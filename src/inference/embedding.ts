/**
 * What the highlight stage asks of a sentence-embedding runtime. Its own module so that each runtime
 * (today MiniLM) implements it without importing the loader that picks the runtime.
 */
export interface Embedder {
  /** Model name as in models/manifest.json. */
  readonly model: string;
  readonly dimensions: number;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Releases worker threads, if any. */
  close?(): void;
}

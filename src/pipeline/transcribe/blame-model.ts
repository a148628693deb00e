import { SpeechWorkerError } from "../../inference/speech-runtime/worker.ts";
import { assertModelIntact } from "../../models/store.ts";

/** A worker that fails may have been fed a corrupted model: say so (ModelCorruptedError) if it was. */
export async function blameModelOnFailure<T>(model: string, signal: AbortSignal | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof SpeechWorkerError && !signal?.aborted) await assertModelIntact(model);
    throw err;
  }
}

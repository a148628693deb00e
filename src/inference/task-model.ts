/**
 * What every task model that runs in this process on ONNX Runtime offers (Silero VAD, CAM++, pyannote
 * segmentation): opened from its verified file, used, released. One small interface, as embedding.ts
 * is for sentence embedders, so each caller opens, runs and releases them the same way.
 */
import type { Ort } from "./onnx/runtime.ts";

export interface TaskModel {
  /** Releases the model's native session. */
  close(): Promise<void>;
}

/** How a task model opens: on the loaded runtime, from its verified file, with at most `threads` threads. */
export type OpenTaskModel<M extends TaskModel> = (ort: Ort, path: string, threads?: number) => Promise<M>;

/** Opens the model at `path`, runs `use` on it, and releases it however `use` ends. */
export async function withTaskModel<M extends TaskModel, T>(open: OpenTaskModel<M>, ort: Ort, path: string, use: (model: M) => Promise<T>): Promise<T> {
  const model = await open(ort, path);
  try {
    return await use(model);
  } finally {
    await model.close();
  }
}

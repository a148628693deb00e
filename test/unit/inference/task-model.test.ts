import { expect, test } from "bun:test";
import { loadOnnxRuntime } from "../../../src/inference/onnx/runtime.ts";
import { SileroVad } from "../../../src/inference/silero-vad.ts";
import { withTaskModel, type OpenTaskModel } from "../../../src/inference/task-model.ts";
import { pcmSource } from "../../../src/media/wav.ts";
import { resolveModel } from "../../../src/models/store.ts";

// The verified Silero model, opened for real; the wrapper only records that its session was released.
async function recordingOpen(): Promise<{ open: OpenTaskModel<SileroVad>; closed: () => number }> {
  let closed = 0;
  const open: OpenTaskModel<SileroVad> = async (ort, path) => {
    const vad = await SileroVad.open(ort, path);
    const close = vad.close.bind(vad);
    vad.close = async () => {
      closed++;
      await close();
    };
    return vad;
  };
  return { open, closed: () => closed };
}

test("withTaskModel runs the model and releases it, whether its use returns or throws", async () => {
  const loaded = await loadOnnxRuntime();
  if (!loaded.ok) throw new Error(loaded.reason);
  const path = resolveModel("silero-vad");
  const { open, closed } = await recordingOpen();
  const silence = pcmSource({ samples: new Float32Array(16000), sampleRate: 16000 });

  const p = await withTaskModel(open, loaded.ort, path, (vad) => vad.probabilities(silence));
  expect(p.probs.length).toBe(31);
  expect(closed()).toBe(1);

  await expect(withTaskModel(open, loaded.ort, path, async () => Promise.reject(new Error("use failed")))).rejects.toThrow("use failed");
  expect(closed()).toBe(2);
});

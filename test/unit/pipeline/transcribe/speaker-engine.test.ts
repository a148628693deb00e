import { expect, test } from "bun:test";
import { speakerEngineChoice } from "../../../../src/pipeline/transcribe/speaker-engine.ts";

test("CLIPYARD_SPEAKER_ENGINE: auto by default, the three names, anything else refused with the allowed values", () => {
  expect(speakerEngineChoice({})).toBe("auto");
  for (const v of ["auto", "onnxruntime", "python"] as const) expect(speakerEngineChoice({ CLIPYARD_SPEAKER_ENGINE: v })).toBe(v);
  expect(() => speakerEngineChoice({ CLIPYARD_SPEAKER_ENGINE: "torch" })).toThrow("CLIPYARD_SPEAKER_ENGINE must be auto, onnxruntime or python (got 'torch')");
});

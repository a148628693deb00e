/**
 * The speaker models (segmentation, CAM++) run while recognition runs, since they need no words
 * (transcribe.ts, speakersBesideRecognition). That must change when the work is done, never what it
 * finds: on the real phone call the words, speakers, turns and activity are the same as when the models
 * run after recognition. A job cancelled while both run stops both and rejects.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { describeShared } from "../helpers/shared.ts";

const CALL = join(SHARED_MEDIA, "two_speakers_call.wav");
const SLOW = 300_000;
// The recogniser does not matter here, only the order of the work: the small model keeps this quick.
const MODEL = "whisper-tiny.en";

describeShared("speaker models beside recognition", () => {
  test("the phone call: the same words, speakers, turns and activity as with the speaker models after recognition", async () => {
    const parts: string[] = [];
    const beside = await transcribeFile(CALL, { model: MODEL, onStats: (part) => parts.push(part) });
    const after = await transcribeFile(CALL, { model: MODEL, speakersBesideRecognition: false });
    expect(beside.engine).toContain("CAM++");
    expect(beside.engine).toContain("segmentation-3.0");
    expect(new Set(beside.words.map((w) => w.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
    expect(beside.words).toEqual(after.words);
    expect(beside.speakerTurns).toEqual(after.speakerTurns);
    expect(beside.speakerActivity).toEqual(after.speakerActivity);
    expect(beside.speakerNames).toEqual(after.speakerNames);
    expect(beside.warnings).toEqual(after.warnings);
    // Every part reported, the clustering (which needs the words) after recognition.
    for (const part of ["decode", "vad", "segment", "embed", "asr", "cluster", "align"]) expect(parts).toContain(part);
    expect(parts.indexOf("cluster")).toBeGreaterThan(parts.indexOf("asr"));
  }, SLOW);

  test("cancelled while recognition runs: the transcription rejects with no transcript, and the next one runs whole", async () => {
    const controller = new AbortController();
    const cancelled = transcribeFile(CALL, {
      model: MODEL,
      signal: controller.signal,
      // The VAD is done past 8 %: recognition and the speaker models are both under way.
      onProgress: (f) => f > 0.08 && controller.abort(new Error("job cancelled")),
    });
    await expect(cancelled).rejects.toThrow();
    const again = await transcribeFile(CALL, { model: MODEL });
    expect(new Set(again.words.map((w) => w.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
  }, SLOW);
});

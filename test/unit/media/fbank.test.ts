/**
 * The TypeScript Kaldi fbank against the speech worker's numpy `fbank()` on real speech: CAM++ was
 * trained on these features, so the in-process embeddings are only as right as they are.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { FBANK_BINS, fbank, fbankFrames } from "../../../src/media/fbank.ts";
import { openWav } from "../../../src/media/wav.ts";
import { SHARED_MEDIA } from "../../helpers/paths.ts";
import { workerPython } from "../../helpers/worker-python.ts";
import { describeShared } from "../../helpers/shared.ts";

const CALL = join(SHARED_MEDIA, "two_speakers_call.wav");

describeShared("Kaldi fbank", () => {
  // A 1.5 s embedding window, a whole 10 s stretch, an odd length and one shorter than a frame.
  const spans: [number, number][] = [[16000, 24000], [48000, 208000], [100003, 100003 + 7777], [5000, 5300]];

  test("matches the worker's numpy fbank on the phone call (max abs diff < 5e-4 in log energy; measured 5e-5)", () => {
    const ref = workerPython<number[][][]>("fbank", `
import worker_io
wav = worker_io.open_wav(${JSON.stringify(CALL)})
spans = ${JSON.stringify(spans)}
print(json.dumps([w.fbank(worker_io.read_samples(wav, a, a + n)).tolist() for a, n in spans]))
`);
    const audio = openWav(CALL);
    try {
      spans.forEach(([a, n], i) => {
        const ours = fbank(audio.read(a, n));
        const want = ref[i]!;
        expect(ours.length / FBANK_BINS).toBe(want.length);
        expect(fbankFrames(n)).toBe(want.length);
        let maxDiff = 0;
        let spread = 0;
        for (let t = 0; t < want.length; t++) {
          for (let m = 0; m < FBANK_BINS; m++) {
            maxDiff = Math.max(maxDiff, Math.abs(ours[t * FBANK_BINS + m]! - want[t]![m]!));
            spread = Math.max(spread, Math.abs(want[t]![m]!));
          }
        }
        expect(maxDiff).toBeLessThan(5e-4);
        // Real speech: the mean-normalised features swing by whole units, so agreement is not two zeros.
        if (want.length > 1) expect(spread).toBeGreaterThan(1);
      });
    } finally {
      audio.close();
    }
  }, 60_000);
});

/**
 * Parity of the single executable with the source checkout (issue #33): the compiled binary, from an
 * empty folder with no Python on PATH (whisper.cpp in-process), and the source with the speech
 * runtime (CTranslate2) run `clipyard process` on the same short shared recording with the default
 * recogniser (whisper-base) and every default model. They must render the same number of clips,
 * find the same speakers and language, name the same engines but for the recogniser, and warn of the
 * same things but for what docs/pipeline/transcribe.md says an engine difference explains.
 */
import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAllShared, sharedFile, testShared } from "../helpers/shared.ts";
import { binaryEnv, buildBinaryInto, enginesBesidesRecogniser, linkModels, ROOT, runProcess, warningsBesidesEngine } from "../helpers/parity.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-parity-"));
const dir = join(work, "empty");
const models = join(work, "models");
afterAll(() => rmSync(work, { recursive: true, force: true }));

let binary: string;
beforeAllShared(() => {
  binary = buildBinaryInto(work, dir);
  linkModels(models);
}, 300_000);

testShared("the executable without Python and the source with the speech runtime process jfk alike", async () => {
  const file = sharedFile("jfk.wav");
  const env = { ...process.env };
  delete env.CLIPYARD_ASR_MODEL;
  delete env.CLIPYARD_ASR_ENGINE;
  const fromBinary = await runProcess([binary], file, join(work, "out-binary"), {
    cwd: dir,
    env: binaryEnv(work, dir, models),
  });
  const fromSource = await runProcess(["bun", "run", join(ROOT, "src/main.ts")], file, join(work, "out-source"), { cwd: ROOT, env });
  expect({ code: fromBinary.code, stderr: fromBinary.stderr }).toMatchObject({ code: 0 });
  expect({ code: fromSource.code, stderr: fromSource.stderr }).toMatchObject({ code: 0 });

  expect(fromBinary.engine!.asr).toStartWith("whisper.cpp whisper-base-ggml-q8_0 in-process");
  expect(fromSource.engine!.asr).toStartWith("faster-whisper/CTranslate2 whisper-base");
  expect(fromBinary.clips).toBeGreaterThan(0);
  expect(fromBinary.clips).toBe(fromSource.clips!);
  expect(fromBinary.speakers).toBe(fromSource.speakers!);
  expect(fromBinary.language).toBe(fromSource.language!);
  expect(enginesBesidesRecogniser(fromBinary.engine!)).toEqual(enginesBesidesRecogniser(fromSource.engine!));
  expect(warningsBesidesEngine(fromBinary.warnings!)).toEqual(warningsBesidesEngine(fromSource.warnings!));
  // Nothing the one file lacks: no model, runtime or re-decoding warning at all.
  expect(fromBinary.warnings!.filter((w) => /not installed|not pulled|not re-decoded|MFCC|TF-IDF|runtime/i.test(w))).toEqual([]);
}, 900_000);

/**
 * Language detection end to end (issue #30): a real person speaking French, with no language given.
 * `clipyard process` with the default recogniser (whisper-base) must detect French itself and carry it
 * through the transcript, the clip's captions and the notes.
 *
 * The recording is June Wallack's French reading of Asterisk's demo instructions (70.7 s, 8 kHz
 * telephone audio; CC BY-SA 3.0), from the Debian package asterisk-core-sounds-fr-wav, which
 * scripts/setup/asr.sh installs. Unlike the espeak-ng French of language-process.test.ts, which
 * whisper-base hears as Latin, this is human speech, so detection itself is what is tested.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { expectFrenchOutput } from "../helpers/french-output.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-detect-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const FRENCH_SPEECH = "/usr/share/asterisk/sounds/fr_CA_f_June/demo-instruct.wav";

test("clipyard process with no --language on real French speech: detects French, French captions and notes", async () => {
  if (!existsSync(FRENCH_SPEECH)) throw new Error(`${FRENCH_SPEECH} is missing: apt-get install asterisk-core-sounds-fr-wav (scripts/setup/asr.sh does)`);
  const out = join(work, "out");
  // The default recogniser and no language: whisper-base decides.
  const env = { ...process.env };
  delete env.CLIPYARD_ASR_MODEL;
  delete env.CLIPYARD_LANGUAGE;
  const proc = Bun.spawn(["bun", "run", join(ROOT, "src/main.ts"), "process", FRENCH_SPEECH, "--out", out, "--clips", "1", "--min-seconds", "8", "--max-seconds", "40"], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  expect({ code: await proc.exited, stderr }).toMatchObject({ code: 0, stderr: expect.stringMatching(/done in [\d.]+ s: 1 clips/) });

  const { text, cueText } = expectFrenchOutput(out);
  // What she says, heard as French: the words of the prompt.
  for (const phrase of ["message", "console", "compose", "appuyez"]) expect(text.toLowerCase()).toContain(phrase);
  expect(cueText.length).toBeGreaterThan(20);
}, 900_000);

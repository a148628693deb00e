/**
 * Speech generated for tests that need a recording but not a particular one (uploads, probes,
 * watch folders): espeak-ng (scripts/setup/render.sh installs it) is deterministic, so every
 * machine makes the same file, and the repository does not depend on ../shared/media for them.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";

const DIR = join(import.meta.dir, "../fixtures/generated");

export const SPEECH_TEXT =
  "This is a short recording made for the tests. It has a few sentences of ordinary speech, spoken by a synthetic voice, " +
  "so that uploads, probes and watch folders have real audio to carry. Nothing in it depends on the shared recordings beside the checkout.";

function run(cmd: string[]): void {
  const r = Bun.spawnSync(cmd, { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd[0]} failed: ${r.stderr.toString().trim()}`);
}

/** test/fixtures/generated/speech.wav: about 17 s of speech, 16 kHz mono 16-bit, made once (parallel test files share it). */
export function speechWav(): string {
  const out = join(DIR, "speech.wav");
  if (existsSync(out)) return out;
  mkdirSync(DIR, { recursive: true });
  const raw = join(DIR, `.speech-${process.pid}-raw.wav`);
  const tmp = join(DIR, `.speech-${process.pid}.wav`);
  try {
    run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", raw, SPEECH_TEXT]);
    run(["ffmpeg", "-v", "error", "-y", "-i", raw, "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", "-fflags", "+bitexact", "-flags", "+bitexact", tmp]);
    renameSync(tmp, out);
  } finally {
    rmSync(raw, { force: true });
    rmSync(tmp, { force: true });
  }
  return out;
}

/**
 * `clipyard doctor` reads cleanly: its report is all it prints unless logs are asked for, and an
 * optional extra that was never pulled (a bigger recogniser, a TTS voice) is shown as optional, not
 * as a fault; a missing model the default pipeline would use still warns or fails.
 */
import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-doctor-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function doctor(env: Record<string, string>, ...args: string[]) {
  const childEnv: Record<string, string | undefined> = { ...process.env, CLIPYARD_DATA_DIR: join(work, "data"), ...env };
  if (!("CLIPYARD_LOG_LEVEL" in env)) delete childEnv.CLIPYARD_LOG_LEVEL;
  const r = spawnSync("bun", ["run", join(ROOT, "src/main.ts"), "doctor", ...args], { cwd: ROOT, env: childEnv, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

test("the report alone: no log lines before it; they come with CLIPYARD_LOG_LEVEL=info", () => {
  const quiet = doctor({});
  expect(quiet.err).not.toContain('"msg"');
  expect(quiet.out.split("\n")[0]).toMatch(/^[✔·!✘] ffmpeg /);
  const asked = doctor({ CLIPYARD_LOG_LEVEL: "info" });
  expect(asked.err).toContain('"msg":"ffmpeg engine detected"');
}, 120_000);

test("with no models: extras are optional, the pipeline's optional models warn, required ones fail", () => {
  const r = doctor({ CLIPYARD_MODELS_DIR: join(work, "no-models") }, "--json");
  expect(r.code).toBe(1);
  const status = Object.fromEntries((JSON.parse(r.out).checks as Array<{ name: string; status: string }>).map((c) => [c.name, c.status]));
  for (const extra of ["whisper-small", "whisper-medium", "whisper-large-v3", "whisper-large-v3-turbo", "piper-joe"]) expect(status[`model ${extra}`]).toBe("optional");
  for (const used of ["campplus-zh-en", "pyannote-segmentation-3.0", "all-minilm-l6-v2"]) expect(status[`model ${used}`]).toBe("warn");
  for (const required of ["whisper-tiny.en", "silero-vad", "human-face"]) expect(status[`model ${required}`]).toBe("fail");
  const plain = doctor({ CLIPYARD_MODELS_DIR: join(work, "no-models") });
  expect(plain.out).toContain("· model whisper-small      optional, not pulled (clipyard models pull whisper-small)");
  expect(plain.out).not.toMatch(/^! model whisper-small/m);
}, 120_000);

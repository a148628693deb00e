/**
 * The pull set: `clipyard models pull` with no name fetches and verifies every model the default
 * pipeline uses (so the single executable gets the source checkout's speakers and topics), and
 * `--minimal` only the required ones. The verified models are linked into a models folder of the
 * test's own, so each pull verifies what is there and fetches nothing; `models list` says what a
 * missing one costs.
 */
import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { loadManifest } from "../../src/models/manifest.ts";
import { modelDir } from "../../src/models/store.ts";
import { PIPELINE_OPTIONAL_MODELS } from "../../src/pipeline/pipeline-models.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-models-pull-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const required = loadManifest().filter((m) => !m.optional).map((m) => m.name);
const pipeline = [...required, ...Object.keys(PIPELINE_OPTIONAL_MODELS)];

function modelsFolder(names: string[]): string {
  const dir = join(work, `models-${names.length}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  for (const name of [...names, "whisper-tiny.en-ggml-q8_0"]) symlinkSync(modelDir(name), join(dir, name), "dir");
  return dir;
}

function models(dir: string, ...args: string[]) {
  // Everything is already verified: a pull only checks (an empty mirror, in case something is not).
  const env = { ...process.env, CLIPYARD_MODELS_DIR: dir, CLIPYARD_MODEL_MIRROR: join(work, "no-mirror"), CLIPYARD_LOG_LEVEL: "error" };
  const r = spawnSync("bun", ["run", join(ROOT, "src/main.ts"), "models", ...args], { cwd: ROOT, env, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const verified = (out: string) => [...out.matchAll(/^([\w.-]+): verified in /gm)].map((m) => m[1]);

test("the default pipeline's set: recognition, voice activity, speaker embeddings, segmentation, sentence embeddings, faces", () => {
  expect(pipeline).toEqual(expect.arrayContaining(["whisper-tiny.en", "silero-vad", "campplus-zh-en", "pyannote-segmentation-3.0", "all-minilm-l6-v2", "human-face"]));
  const r = models(modelsFolder(pipeline), "pull");
  expect(r.err).toBe("");
  expect(r.code).toBe(0);
  expect(verified(r.out).sort()).toEqual([...pipeline].sort());
}, 120_000);

test("--minimal pulls only the required models; the pipeline's optional ones are then missing and listed with their cost", () => {
  const dir = modelsFolder(required);
  const r = models(dir, "pull", "--minimal");
  expect(r.code).toBe(0);
  expect(verified(r.out).sort()).toEqual([...required].sort());
  const list = models(dir, "list").out.split("\n");
  const row = (name: string) => list.find((l) => l.startsWith(`${name} `))!;
  expect(row("campplus-zh-en")).toContain("default pipeline");
  expect(row("campplus-zh-en")).toContain("speaker labels from MFCC clustering instead");
  expect(row("all-minilm-l6-v2")).toContain("TF-IDF");
  expect(row("whisper-small")).toContain("nothing by default");
  expect(row("silero-vad")).not.toContain("required: jobs need it"); // present: nothing lost
}, 120_000);

test("--minimal with names is a usage error", () => {
  expect(models(work, "pull", "--minimal", "silero-vad").code).toBe(2);
});

import { afterAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { acquire, SOURCE_FILE, uploadedFileName, uploadFilePath, uploadInfoPath } from "../../../src/pipeline/acquire.ts";
import { PipelineError } from "../../../src/pipeline/stage.ts";
import { speechWav } from "../../helpers/speech.ts";

const dataDir = mkdtempSync(join(tmpdir(), "clipyard-acquire-upload-"));
const config = loadConfig({ CLIPYARD_DATA_DIR: dataDir });
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function stage(id: string, filename: string | undefined, from = speechWav()) {
  mkdirSync(join(dataDir, "uploads"), { recursive: true });
  copyFileSync(from, uploadFilePath(dataDir, id));
  writeFileSync(uploadInfoPath(dataDir, id), JSON.stringify({ id, metadata: filename === undefined ? {} : { filename } }));
}

test("an upload becomes the job's own file, named by the appliance (never by the client's file name), linked not copied, and is probed", async () => {
  stage("upl_unit1", "Episode 42: the bees.wav");
  const info = await acquire({ type: "upload", url: "upl_unit1" }, join(dataDir, "jobs/j1/source"), config);
  expect(info.path).toBe(join(dataDir, "jobs/j1/source", SOURCE_FILE));
  expect(info.hasAudio).toBe(true);
  expect(info.durationSeconds).toBeGreaterThan(10);
  // Same inode: the data directory holds the episode once.
  expect(statSync(info.path).ino).toBe(statSync(uploadFilePath(dataDir, "upl_unit1")).ino);
});

test("the client's file name, shown to editors only, is reduced to a safe base name; none given, none shown", () => {
  stage("upl_unit2", "../../etc/passwd");
  expect(uploadedFileName(dataDir, "upl_unit2")).toBe("passwd");
  stage("upl_unit3", ".bashrc");
  expect(uploadedFileName(dataDir, "upl_unit3")).toBeUndefined();
  stage("upl_unit4", undefined);
  expect(uploadedFileName(dataDir, "upl_unit4")).toBeUndefined();
});

test("a vanished upload or one with no audio fails acquisition with media_fetch_failed", async () => {
  const missing = acquire({ type: "upload", url: "upl_gone" }, join(dataDir, "jobs/j2/source"), config);
  await expect(missing).rejects.toBeInstanceOf(PipelineError);
  await expect(missing).rejects.toMatchObject({ code: "media_fetch_failed" });
  stage("upl_text", "notes.txt", join(import.meta.dir, "../../fixtures/interview.turns.txt"));
  await expect(acquire({ type: "upload", url: "upl_text" }, join(dataDir, "jobs/j3/source"), config)).rejects.toMatchObject({ code: "media_fetch_failed" });
});

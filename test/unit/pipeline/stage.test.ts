import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readCheckpoint, writeCheckpoint } from "../../../src/pipeline/stage.ts";

const root = mkdtempSync(join(tmpdir(), "clipyard-stage-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A job folder holding an acquired source and a checkpoint that names it at `named`. */
function jobFolder(name: string, named: (dir: string) => string) {
  const dir = join(root, name);
  mkdirSync(join(dir, "source"), { recursive: true });
  writeFileSync(join(dir, "source", "source.media"), "bytes");
  writeCheckpoint(dir, { done: ["acquire"], state: { source: { path: named(dir), durationSeconds: 3 } } });
  return dir;
}

test("a checkpoint written in another data folder finds the job's source in its own folder", () => {
  // As after `clipyard restore` into a new folder: the old folder is gone.
  const dir = jobFolder("restored", () => "/srv/old-data/jobs/job_x/source/source.media");
  expect(readCheckpoint<{ source: { path: string; durationSeconds: number } }>(dir)!.state.source).toEqual({ path: join(dir, "source", "source.media"), durationSeconds: 3 });
});

test("a source that exists where the checkpoint says is kept, and so is a path with no copy here", () => {
  const here = jobFolder("in-place", (dir) => join(dir, "source", "source.media"));
  expect(readCheckpoint<{ source: { path: string } }>(here)!.state.source.path).toBe(join(here, "source", "source.media"));
  const outside = join(root, "episode.mp4");
  writeFileSync(outside, "bytes");
  const cli = jobFolder("cli", () => outside);
  expect(readCheckpoint<{ source: { path: string } }>(cli)!.state.source.path).toBe(outside);
  const gone = jobFolder("gone", () => "/srv/old-data/jobs/job_y/source/other-name.mp4");
  expect(readCheckpoint<{ source: { path: string } }>(gone)!.state.source.path).toBe("/srv/old-data/jobs/job_y/source/other-name.mp4");
});

test("no checkpoint reads as none", () => {
  expect(readCheckpoint(join(root, "nothing-here"))).toBeUndefined();
});

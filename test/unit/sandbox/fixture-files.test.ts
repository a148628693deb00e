import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { ROOT_DIR } from "../../../src/config.ts";
import { FIXTURE_FILES, FIXTURE_MANIFEST } from "../../../src/sandbox/fixture-files.ts";

test("the embedded fixture list names exactly the files of the manifest and the folder", () => {
  const { clips: captions, ...exports } = FIXTURE_MANIFEST.exports;
  const named = [
    ...FIXTURE_MANIFEST.clips.flatMap((c) => [c.files.linkedin, c.files.x, c.thumbnails.linkedin, c.thumbnails.x]),
    FIXTURE_MANIFEST.trailer.file,
    ...captions.flatMap((c) => [c.srt, c.vtt]),
    ...Object.values(exports),
  ].sort();
  expect(Object.keys(FIXTURE_FILES).sort()).toEqual(named);
  const onDisk = readdirSync(join(ROOT_DIR, "fixtures/sandbox")).filter((f) => f !== "manifest.json").sort();
  expect(onDisk).toEqual(named);
});

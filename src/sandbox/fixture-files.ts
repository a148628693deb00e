/**
 * The sandbox fixture files, imported as files so `bun build --compile` embeds them in the binary (in
 * a checkout these resolve to the files on disk). test/unit/sandbox-fixtures.test.ts checks that this
 * list and fixtures/sandbox/manifest.json name the same files.
 */
import manifest from "../../fixtures/sandbox/manifest.json" with { type: "json" };
import clip1Linkedin from "../../fixtures/sandbox/clip1_linkedin.mp4" with { type: "file" };
import clip1X from "../../fixtures/sandbox/clip1_x.mp4" with { type: "file" };
import clip2Linkedin from "../../fixtures/sandbox/clip2_linkedin.mp4" with { type: "file" };
import clip2X from "../../fixtures/sandbox/clip2_x.mp4" with { type: "file" };
import clip3Linkedin from "../../fixtures/sandbox/clip3_linkedin.mp4" with { type: "file" };
import clip3X from "../../fixtures/sandbox/clip3_x.mp4" with { type: "file" };
import trailer from "../../fixtures/sandbox/trailer.mp4" with { type: "file" };

export const FIXTURE_MANIFEST = manifest;

export const FIXTURE_FILES: Record<string, string> = {
  "clip1_linkedin.mp4": clip1Linkedin,
  "clip1_x.mp4": clip1X,
  "clip2_linkedin.mp4": clip2Linkedin,
  "clip2_x.mp4": clip2X,
  "clip3_linkedin.mp4": clip3Linkedin,
  "clip3_x.mp4": clip3X,
  "trailer.mp4": trailer,
};

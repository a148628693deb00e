/**
 * The sandbox fixture files, imported as files so `bun build --compile` embeds them in the binary (in
 * a checkout these resolve to the files on disk). test/unit/sandbox/fixtures.test.ts checks that this
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
import clip1LinkedinJpg from "../../fixtures/sandbox/clip1_linkedin.jpg" with { type: "file" };
import clip1XJpg from "../../fixtures/sandbox/clip1_x.jpg" with { type: "file" };
import clip2LinkedinJpg from "../../fixtures/sandbox/clip2_linkedin.jpg" with { type: "file" };
import clip2XJpg from "../../fixtures/sandbox/clip2_x.jpg" with { type: "file" };
import clip3LinkedinJpg from "../../fixtures/sandbox/clip3_linkedin.jpg" with { type: "file" };
import clip3XJpg from "../../fixtures/sandbox/clip3_x.jpg" with { type: "file" };
import clip1Srt from "../../fixtures/sandbox/clip1.srt" with { type: "file" };
import clip1Vtt from "../../fixtures/sandbox/clip1.vtt" with { type: "file" };
import clip2Srt from "../../fixtures/sandbox/clip2.srt" with { type: "file" };
import clip2Vtt from "../../fixtures/sandbox/clip2.vtt" with { type: "file" };
import clip3Srt from "../../fixtures/sandbox/clip3.srt" with { type: "file" };
import clip3Vtt from "../../fixtures/sandbox/clip3.vtt" with { type: "file" };
import transcriptSrt from "../../fixtures/sandbox/transcript.srt" with { type: "file" };
import transcriptVtt from "../../fixtures/sandbox/transcript.vtt" with { type: "file" };
import transcriptTxt from "../../fixtures/sandbox/transcript.txt" with { type: "file" };
import chaptersJson from "../../fixtures/sandbox/chapters.json" with { type: "file" };
import timelineOtio from "../../fixtures/sandbox/timeline.otio" with { type: "file" };
import timelineFcpxml from "../../fixtures/sandbox/timeline.fcpxml" with { type: "file" };
import timelineXmeml from "../../fixtures/sandbox/timeline.xml" with { type: "file" };

export const FIXTURE_MANIFEST = manifest;

export const FIXTURE_FILES: Record<string, string> = {
  "clip1_linkedin.mp4": clip1Linkedin,
  "clip1_x.mp4": clip1X,
  "clip2_linkedin.mp4": clip2Linkedin,
  "clip2_x.mp4": clip2X,
  "clip3_linkedin.mp4": clip3Linkedin,
  "clip3_x.mp4": clip3X,
  "trailer.mp4": trailer,
  "clip1_linkedin.jpg": clip1LinkedinJpg,
  "clip1_x.jpg": clip1XJpg,
  "clip2_linkedin.jpg": clip2LinkedinJpg,
  "clip2_x.jpg": clip2XJpg,
  "clip3_linkedin.jpg": clip3LinkedinJpg,
  "clip3_x.jpg": clip3XJpg,
  "clip1.srt": clip1Srt,
  "clip1.vtt": clip1Vtt,
  "clip2.srt": clip2Srt,
  "clip2.vtt": clip2Vtt,
  "clip3.srt": clip3Srt,
  "clip3.vtt": clip3Vtt,
  "transcript.srt": transcriptSrt,
  "transcript.vtt": transcriptVtt,
  "transcript.txt": transcriptTxt,
  // TypeScript types every .json import as its parsed content; imported as a file, Bun gives its path.
  "chapters.json": chaptersJson as unknown as string,
  "timeline.otio": timelineOtio,
  "timeline.fcpxml": timelineFcpxml,
  // Bun's types give .xml imports a parsed Document; imported as a file, Bun gives its path.
  "timeline.xml": timelineXmeml as unknown as string,
};

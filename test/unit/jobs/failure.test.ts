import { expect, test } from "bun:test";
import { INTERNAL_FAILURE, publicFailure, withoutLocalPaths } from "../../../src/jobs/failure.ts";
import { PipelineError } from "../../../src/pipeline/stage.ts";

const roots = ["/tmp", "/var/lib/clipyard/data"];

test("local paths are cut out of a job's message; the customer's own URL is left whole", () => {
  expect(withoutLocalPaths("the file /var/lib/clipyard/data/jobs/job_a/source/source.media is bad", roots)).toBe("the file (a local file) is bad");
  expect(withoutLocalPaths("open '/tmp/clipyard-asr-1-x/speech.wav': no", roots)).toBe("open '(a local file)': no");
  expect(withoutLocalPaths("segment file:///tmp/a.ts, refused", roots)).toBe("segment file://(a local file), refused");
  expect(withoutLocalPaths("fetching https://cdn.example.com/tmp/ep.mp4 answered HTTP 404", roots)).toBe("fetching https://cdn.example.com/tmp/ep.mp4 answered HTTP 404");
  expect(withoutLocalPaths("/tmpfoo is another folder", roots)).toBe("/tmpfoo is another folder");
});

test("only a PipelineError's sentence reaches the job; anything else is the generic internal failure", () => {
  const config = { dataDir: "/var/lib/clipyard/data", modelsDir: "/var/lib/clipyard/models" };
  expect(publicFailure(new PipelineError("media_fetch_failed", "the media has no audio stream"), config)).toEqual({ code: "media_fetch_failed", message: "the media has no audio stream" });
  expect(publicFailure(new Error("Traceback (most recent call last): ..."), config)).toEqual({ code: "analysis_failed", message: INTERNAL_FAILURE });
  expect(publicFailure("a string", config)).toEqual({ code: "analysis_failed", message: INTERNAL_FAILURE });
});

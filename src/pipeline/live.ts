import type { Config } from "../config.ts";
import type { LivePipeline } from "../jobs/live-runner.ts";
import { PipelineError } from "./stage.ts";

/**
 * The live pipeline: acquisition, transcription and speakers, highlights, rendering, notes.
 * Its stages land with the pipeline issues; until then a live job fails cleanly (no charge).
 */
export function livePipeline(_config: Config): LivePipeline<Record<string, unknown>> {
  return {
    stages: () => [
      {
        name: "acquire",
        weight: 1,
        run: async () => {
          throw new PipelineError("analysis_failed", "This build has no live pipeline yet; use a sandbox (svc_test_) key.");
        },
      },
    ],
    initialState: () => ({}),
    output: () => {
      throw new Error("unreachable");
    },
  };
}

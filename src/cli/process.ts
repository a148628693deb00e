import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { loadConfig } from "../config.ts";
import { sweepDeadScratch } from "../scratch.ts";
import type { JobRow } from "../db/schema.ts";
import { localJobOutput } from "../jobs/local-output.ts";
import { livePipeline } from "../pipeline/live.ts";
import { PipelineError, runStages } from "../pipeline/stage.ts";
import { parseArgs } from "./args.ts";
import { JOB_OPTION_FLAGS, jobOptionsFromArgs } from "./job-options.ts";
import { progressReporter } from "./progress.ts";

const USAGE = `usage: clipyard process FILE --out DIR ${JOB_OPTION_FLAGS}

Runs the whole live pipeline on a local media file, without the server, and writes to DIR:
clips (clipN_linkedin.mp4 9:16, clipN_x.mp4 16:9), trailer.mp4 (with --trailer, video sources),
notes.md, transcript.json and job.json (shaped like the API's job output). Re-running the same
command resumes from the last finished stage.
`;

export default async function processCommand(argv: string[]): Promise<number> {
  const { opts, rest } = parseArgs(argv, ["trailer", "help"]);
  const file = rest[0];
  if (opts.help || !file || typeof opts.out !== "string") {
    process.stderr.write(USAGE);
    return opts.help ? 0 : 2;
  }
  const path = resolve(file);
  if (!existsSync(path)) {
    process.stderr.write(`clipyard: no such file ${path}\n`);
    return 2;
  }
  const options = jobOptionsFromArgs(opts);
  if (typeof options === "string") {
    process.stderr.write(`clipyard: ${options}\n`);
    return 2;
  }
  const out = resolve(opts.out);
  const work = join(out, ".clipyard-work");
  mkdirSync(work, { recursive: true });
  const config = loadConfig();
  sweepDeadScratch();
  const job = {
    id: "job_local",
    sourceType: "file",
    sourceUrl: path,
    options: JSON.stringify(options),
  } as JobRow;
  const pipeline = livePipeline(config, { outDir: () => out });
  const bar = progressReporter();
  const started = performance.now();
  try {
    const state = await runStages(pipeline.stages(job), {
      jobId: job.id,
      workDir: work,
      initialState: pipeline.initialState(job),
      signal: new AbortController().signal,
      onProgress: (stage, percent) => bar.update(stage, percent),
    });
    const output = pipeline.output(state, job);
    const jobJson = localJobOutput(output);
    writeFileSync(join(out, "job.json"), JSON.stringify(jobJson, null, 2));
    rmSync(work, { recursive: true, force: true });
    bar.done(`done in ${((performance.now() - started) / 1000).toFixed(1)} s: ${output.clips.length} clips${output.trailer ? " + trailer" : ""} in ${out}`);
    for (const w of output.warnings ?? []) process.stderr.write(`warning: ${w}\n`);
    return 0;
  } catch (err) {
    const code = err instanceof PipelineError ? err.code : "analysis_failed";
    bar.done(`failed (${code}): ${(err as Error).message}`);
    return 1;
  }
}

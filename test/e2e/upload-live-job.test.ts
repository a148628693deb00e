import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Upload } from "tus-js-client";
import { jobOutputDir } from "../../src/pipeline/output.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { checkExports } from "../helpers/exports.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { terminalJob } from "../helpers/uploads.ts";
import { beforeAllShared, afterAllShared, testShared } from "../helpers/shared.ts";

/**
 * The studio path end to end: a real recording goes up with the tus reference client in chunks, the
 * transfer is cut off mid-way and resumed from the server's offset, a live job runs the real
 * pipeline on the upload, and every export downloads and parses, its cue times checked against
 * the words the recogniser produced.
 */
const RECORDING = join(SHARED_MEDIA, "two_speakers_call.wav");
const CHUNK = 128 * 1024;
let app: TestAppliance;
beforeAllShared(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "1" } });
});
afterAllShared(() => app.stop());

interface Sent {
  url: string;
  /** bytesAccepted reported after each chunk of this session. */
  accepted: number[];
}

function send(data: Buffer, key: string, opts: { uploadUrl?: string; stopAfterChunks?: number }): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const accepted: number[] = [];
    const upload: Upload = new Upload(data, {
      endpoint: `${app.baseUrl}/v1/uploads`,
      uploadUrl: opts.uploadUrl,
      chunkSize: CHUNK,
      retryDelays: [],
      headers: { authorization: `Bearer ${key}` },
      metadata: { filename: "two_speakers_call.wav", filetype: "audio/wav" },
      onChunkComplete: (_size, bytesAccepted) => {
        accepted.push(bytesAccepted);
        if (opts.stopAfterChunks !== undefined && accepted.length === opts.stopAfterChunks) {
          // The connection drops: the client stops mid-upload without terminating it.
          upload.abort(false).then(() => resolve({ url: upload.url!, accepted }), reject);
        }
      },
      onSuccess: () => resolve({ url: upload.url!, accepted }),
      onError: reject,
    });
    upload.start();
  });
}

testShared("tus upload, interrupted and resumed, becomes a live job whose exports all parse", async () => {
  const key = app.key("upload-e2e", "live");
  const data = readFileSync(RECORDING);
  expect(data.length).toBeGreaterThan(CHUNK * 4);

  const first = await send(data, key, { stopAfterChunks: 3 });
  const id = first.url.split("/").pop()!;
  const partial = (await app.api("GET", `/v1/uploads/${id}`, { key })).json;
  expect(partial.status).toBe("receiving");
  expect(partial.received_bytes).toBe(3 * CHUNK);

  // A fresh client resumes at the server's offset: its first chunk ends one chunk past the cut.
  const second = await send(data, key, { uploadUrl: first.url });
  expect(second.url).toBe(first.url);
  expect(second.accepted[0]).toBe(4 * CHUNK);
  expect(second.accepted.at(-1)).toBe(data.length);
  expect((await app.api("GET", `/v1/uploads/${id}`, { key })).json).toMatchObject({ status: "complete", size: data.length, received_bytes: data.length });

  const submitted = await app.api("POST", "/v1/jobs", {
    key,
    // One clip: the checks below hold for each clip alike, and the exports of several clips are
    // checked on the real two-clip jobs of live-job.test.ts and editing.test.ts.
    body: { source: { type: "upload", upload_id: id }, options: { clip_count: 1, min_clip_seconds: 6, max_clip_seconds: 14 } },
  });
  expect(submitted.status).toBe(202);
  const job = await terminalJob(app, key, submitted.json.id, 280_000);
  expect(job.error).toBeNull();
  expect(job.status).toBe("complete");
  expect(job.source).toEqual({ type: "upload", upload_id: id });
  expect(job.livemode).toBe(true);

  const parsed = await checkExports(job);
  // Cue times are the recogniser's word times: each transcript cue starts at its first word and
  // ends at its last (ms precision; a word timed with no duration is held 0.1 s at most), and each
  // clip caption cue at a word start, relative to the clip.
  const { words } = JSON.parse(readFileSync(join(jobOutputDir(app.dataDir, job.id), "transcript.json"), "utf8")) as { words: Array<{ word: string; start: number; end: number }> };
  const ms = (s: number) => Math.round(s * 1000);
  let w = 0;
  for (const cue of parsed.transcriptSrt) {
    const n = cue.text.replace(/^[^:]+: /, "").split(/\s+/).length;
    expect(cue.start).toBe(ms(words[w]!.start));
    expect(cue.end).toBeGreaterThanOrEqual(ms(words[w + n - 1]!.end));
    expect(cue.end).toBeLessThanOrEqual(Math.max(ms(words[w + n - 1]!.end), cue.start + 100));
    w += n;
  }
  expect(w).toBe(words.length);
  for (const [i, clip] of job.output.clips.entries()) {
    const starts = new Set(words.map((x) => ms(x.start - clip.start_time)));
    for (const cue of parsed.clipCaptions[i]!.srt) {
      if (cue.start > 0) expect(starts.has(cue.start)).toBe(true);
    }
  }
  // The timeline points at the uploaded file by the name the client gave it.
  expect(parsed.timeline[0]!.clips[0]!.media).toBe("two_speakers_call.wav");
}, 300_000);

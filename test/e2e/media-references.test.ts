/**
 * The attack from issue #25: a live job whose video_url serves a playlist (or a concat list) naming
 * another organisation's downloaded source by its local path. The job must fail at acquisition with
 * media_fetch_failed, and nothing of the other recording may reach the job.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { startMediaServer } from "../helpers/media-server.ts";
import { speechWav } from "../helpers/speech.ts";

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "1" };
let app: TestAppliance;
let media: ReturnType<typeof startMediaServer>;
let served: string;
let victim: string;

beforeAll(async () => {
  app = await startAppliance({ env: LAN });
  // Where another organisation's job keeps its download. Before this fix downloads were named by
  // the URL's extension, and data folders keep those: an MPEG-TS "source.ts" is a segment HLS
  // reads without complaint (today's "source.media" would be refused by HLS's extension check alone).
  const victimDir = join(app.dataDir, "jobs", "job_victim0000000000000000", "source");
  mkdirSync(victimDir, { recursive: true });
  victim = join(victimDir, "source.ts");
  const ff = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-t", "4", "-i", speechWav(), "-c:a", "aac", "-f", "mpegts", victim]);
  expect(ff.exitCode).toBe(0);
  served = mkdtempSync(join(tmpdir(), "clipyard-served-"));
  writeFileSync(join(served, "episode.m3u8"), `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:5\n#EXTINF:4.0,\nfile://${victim}\n#EXT-X-ENDLIST\n`);
  writeFileSync(join(served, "episode.mp4"), `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:5\n#EXTINF:4.0,\nfile://${victim}\n#EXT-X-ENDLIST\n`);
  // Relative to the job's own source folder (jobs/<id>/source/). ffmpeg's own safe mode refuses
  // this path today; the container allowlist must not depend on that.
  writeFileSync(join(served, "episode.ffconcat"), `ffconcat version 1.0\nfile '../../job_victim0000000000000000/source/source.ts'\n`);
  media = startMediaServer(served);
});

afterAll(async () => {
  await app.stop();
  media.stop();
  rmSync(served, { recursive: true, force: true });
});

async function settle(key: string, id: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = (await app.api("GET", `/v1/jobs/${id}`, { key })).json;
    if (job.status === "complete" || job.status === "failed") return job;
    if (Date.now() > end) throw new Error(`job stuck: ${JSON.stringify(job)}`);
    await Bun.sleep(200);
  }
}

for (const name of ["episode.m3u8", "episode.mp4", "episode.ffconcat"]) {
  test(`a live job whose URL serves a reference file (${name}) fails with media_fetch_failed`, async () => {
    const key = app.key("attacker", "live");
    const submitted = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "video_url", url: media.url(name) } } });
    expect(submitted.status).toBe(202);
    const job = await settle(key, submitted.json.id, 120_000);
    expect(job.status).toBe("failed");
    expect(job.error.code).toBe("media_fetch_failed");
    expect(job.output).toBeNull();
    // The error names neither the other job nor any path of the appliance's.
    expect(job.error.message).not.toContain("job_victim");
    expect(job.error.message).not.toContain(app.dataDir);
  }, 150_000);
}

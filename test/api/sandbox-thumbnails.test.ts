import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT_DIR } from "../../src/config.ts";
import { startAppliance, submitAndSettle, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";

/**
 * Sandbox jobs carry a cover per clip and format (`thumbnail_urls`), as live jobs do: the committed
 * fixture covers (scripts/fixtures/make-sandbox-covers.ts), served under the job's share link as
 * JPEG with Range support; a sandbox clip of one's own gets the first clip's covers for its formats.
 */
let app: TestAppliance;
beforeAll(async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "0.005" } });
});
afterAll(() => app.stop());

async function completed(key: string, body: unknown) {
  const { created, job } = await submitAndSettle(app, key, body);
  expect(created.status).toBe(202);
  return job;
}

const fixture = (name: string) => new Uint8Array(readFileSync(join(ROOT_DIR, "fixtures/sandbox", name)));

test("every sandbox clip has a JPEG cover per format under the share link, the fixture's own bytes", async () => {
  const key = app.key("sandbox-covers");
  const job = await completed(key, VIDEO_BODY);
  expect(job.status).toBe("complete");
  expect(job.output.clips).toHaveLength(3);
  for (const [i, clip] of job.output.clips.entries()) {
    expect(Object.keys(clip.thumbnail_urls).sort()).toEqual(Object.keys(clip.rendered_urls).sort());
    for (const format of ["linkedin", "x"]) {
      const url: string = clip.thumbnail_urls[format];
      expect(url).toBe(`${job.output.guest_share_url}/files/clip${i + 1}_${format}.jpg`);
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("image/jpeg");
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(fixture(`clip${i + 1}_${format}.jpg`));
    }
  }
  // Range requests, as for the clips.
  const part = await fetch(job.output.clips[0].thumbnail_urls.x, { headers: { range: "bytes=0-3" } });
  expect(part.status).toBe(206);
  expect([...new Uint8Array(await part.arrayBuffer())].slice(0, 2)).toEqual([0xff, 0xd8]);
  // An audio source's sandbox job has them too (every sandbox clip is the fixture's audiogram).
  const audio = await completed(key, { source: { type: "video_url", url: "https://media.example.com/episode-42.mp3" } });
  expect(audio.output.clips[2].thumbnail_urls).toEqual({ linkedin: `${audio.output.guest_share_url}/files/clip3_linkedin.jpg`, x: `${audio.output.guest_share_url}/files/clip3_x.jpg` });
});

test("a sandbox clip of one's own gets the first clip's covers for its formats; deleting it leaves the fixture covers served", async () => {
  const key = app.key("sandbox-covers-own");
  const job = await completed(key, VIDEO_BODY);
  const t = job.output.transcript;
  const made = await app.api("POST", `/v1/jobs/${job.id}/clips`, { key, body: { start_time: t[2].start, end_time: t[3].end, formats: ["x"] } });
  expect(made.status).toBe(202);
  expect(made.json.thumbnail_urls).toEqual({ x: job.output.clips[0].thumbnail_urls.x });
  const del = await app.api("DELETE", `/v1/jobs/${job.id}/clips/${made.json.id}`, { key });
  expect(del.status).toBe(200);
  expect((await fetch(job.output.clips[0].thumbnail_urls.x)).status).toBe(200);
});

test("a cover is served only under the share link of a job that names it", async () => {
  const key = app.key("sandbox-covers-scope");
  const job = await completed(key, VIDEO_BODY);
  const base = job.output.guest_share_url;
  for (const name of ["clip4_x.jpg", "../manifest.json", "clip1_x.jpeg"]) expect((await fetch(`${base}/files/${name}`)).status).toBe(404);
  // Another world cannot read the job, though its share link serves the files to whoever holds it.
  expect((await app.api("GET", `/v1/jobs/${job.id}`, { key: app.key("sandbox-covers-scope", "live") })).status).toBe(404);
});

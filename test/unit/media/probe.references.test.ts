/**
 * Files that name other files (playlists, concat lists, session descriptions) must never be opened
 * as media: their demuxers follow the references, which would read files the appliance holds for
 * other organisations. Each case below is a reference file pointing at a real local recording.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeToSpeechWav } from "../../../src/media/decode-audio.ts";
import { ffmpeg } from "../../../src/media/ffmpeg.ts";
import { MediaProbeError, probeMedia } from "../../../src/media/probe.ts";
import { speechWav } from "../../helpers/speech.ts";

let dir: string;
let secret: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "clipyard-refs-"));
  // MPEG-TS is what HLS segments normally are, so the playlist demuxer reads it without complaint.
  secret = join(dir, "secret.ts");
  const ff = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-t", "3", "-i", speechWav(), "-c:a", "aac", "-f", "mpegts", secret]);
  expect(ff.exitCode).toBe(0);
  // A talking-head-like MP4 (picture and speech) for the accepted-containers case.
  const mp4 = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:d=2", "-t", "2", "-i", speechWav(), "-c:v", "libx264", "-c:a", "aac", "-shortest", join(dir, "talking.mp4")]);
  expect(mp4.exitCode).toBe(0);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hls = (segment: string) => `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXTINF:3.0,\n${segment}\n#EXT-X-ENDLIST\n`;

const cases: Array<[string, string, () => string]> = [
  ["an HLS playlist with a file: URL", "list.m3u8", () => hls(`file://${secret}`)],
  ["an HLS playlist with a relative segment", "relative.m3u8", () => hls("secret.ts")],
  ["an HLS playlist named like a video", "episode.mp4", () => hls(`file://${secret}`)],
  ["an HLS playlist under the appliance's own download name", "source.media", () => hls("secret.ts")],
  ["an ffconcat list", "list.ffconcat", () => `ffconcat version 1.0\nfile 'secret.ts'\n`],
  ["an ffconcat list named like audio", "episode.m4a", () => `ffconcat version 1.0\nfile 'secret.ts'\n`],
  ["a DASH manifest", "episode.mpd", () => `<?xml version="1.0"?>\n<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT3S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011"><Period><AdaptationSet mimeType="audio/mp2t"><Representation id="a" bandwidth="64000"><BaseURL>file://${secret}</BaseURL></Representation></AdaptationSet></Period></MPD>\n`],
  ["an SDP session description", "session.sdp", () => "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\nm=audio 5004 RTP/AVP 0\n"],
];

for (const [what, name, content] of cases) {
  test(`${what} is refused by the probe`, async () => {
    const path = join(dir, name);
    writeFileSync(path, content());
    const err = await probeMedia(path, { requireAudio: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MediaProbeError);
  }, 20_000);
}

test("decoding a playlist fails too, so nothing downstream of the probe can read through one", async () => {
  const path = join(dir, "decode.m3u8");
  writeFileSync(path, hls(`file://${secret}`));
  await expect(decodeToSpeechWav(path, join(dir, "out.wav"))).rejects.toBeInstanceOf(MediaProbeError);
});

test("the referenced recording itself is an accepted container, under any name", async () => {
  copyFileSync(secret, join(dir, "copy.media"));
  const info = await probeMedia(join(dir, "copy.media"), { requireAudio: true });
  expect(info.hasAudio).toBe(true);
  expect(info.durationSeconds).toBeGreaterThan(2.5);
  for (const real of [speechWav(), join(dir, "talking.mp4")]) {
    expect((await probeMedia(real, { requireAudio: true })).hasAudio).toBe(true);
  }
});

test("an ffmpeg input that does not come through mediaInput() is refused before ffmpeg starts", async () => {
  await expect(ffmpeg(["-y", "-i", secret, "-f", "null", "-"])).rejects.toThrow("mediaInput");
  // Generated sources name their format and stay allowed.
  const r = await ffmpeg(["-v", "error", "-f", "lavfi", "-i", "anullsrc=d=0.1", "-f", "null", "-"]);
  expect(r.code).toBe(0);
});

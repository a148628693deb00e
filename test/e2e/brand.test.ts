/**
 * The brand kit and thumbnails on real recordings, measured from pixels: the logo is where the kit
 * puts it in decoded frames (colour statistics of the corner it was given against the others), the
 * covers exist at each format's frame size, and a live job through the API renders with the brand it
 * started with: a later change of the kit does not reach its re-render. The kit's intro and outro
 * cards open and close the job's clips and their re-render: the files are longer by the cards, the
 * intro is a card without the logo, and the caption sidecars are shifted onto the file's audio.
 */
import { afterAll, expect } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeImage } from "../../src/media/image.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { logoBox, type BrandLook, type LogoPosition } from "../../src/pipeline/render/brand.ts";
import { renderClipCovers } from "../../src/pipeline/render/cover.ts";
import type { SpeakerCropPlan } from "../../src/pipeline/render/crop.ts";
import { FORMATS, renderClipFormats, type ClipFormat } from "../../src/pipeline/render/render.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { makeImage } from "../helpers/images.ts";
import { startMediaServer } from "../helpers/media-server.ts";
import { rawUpload } from "../helpers/uploads.ts";
import { eventually } from "../helpers/wait.ts";
import { cues } from "../helpers/exports.ts";
import { ffprobeJson } from "../../src/media/ffmpeg.ts";
import { afterAllShared, beforeAllShared, SHARED_MEDIA, testShared } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-brand-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const MAGENTA = [255, 0, 255];
const CORNERS: LogoPosition[] = ["top-left", "top-right", "bottom-left", "bottom-right"];

/** One decoded frame as RGB24. */
async function frameAt(path: string, t: number, w: number, h: number, input = mediaInput(path)): Promise<Uint8Array> {
  const out = join(work, `frame-${Math.random().toString(36).slice(2)}.rgb`);
  await ffmpeg(["-y", "-ss", t.toFixed(3), ...input, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", out]);
  const buf = new Uint8Array(await Bun.file(out).arrayBuffer());
  expect(buf.length).toBe(w * h * 3);
  return buf;
}

/** Mean colour of a box, a few pixels inside its edges (scaling and chroma blur the border). */
function meanColour(rgb: Uint8Array, w: number, box: { x: number; y: number; w: number; h: number }): number[] {
  const inset = 6;
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = box.y + inset; y < box.y + box.h - inset; y++) {
    for (let x = box.x + inset; x < box.x + box.w - inset; x++) {
      for (let c = 0; c < 3; c++) sum[c]! += rgb[(y * w + x) * 3 + c]!;
      n++;
    }
  }
  return sum.map((s) => s / n);
}

const near = (a: number[], b: number[], tol: number) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

/** The logo's box is magenta in the corner it was put in, and no other corner is. */
function expectLogoIn(rgb: Uint8Array, format: ClipFormat, look: BrandLook) {
  const frame = FORMATS[format];
  for (const corner of CORNERS) {
    const box = logoBox(frame, { ...look, logo_position: corner }, look.logo!);
    const mean = meanColour(rgb, frame.width, box);
    expect({ format, corner, magenta: near(mean, MAGENTA, 40) }).toEqual({ format, corner, magenta: corner === look.logo_position });
  }
}

testShared("a video clip's frames carry the logo in the corner the kit names, both formats; covers are the frame's size with the title band", async () => {
  const logoPath = join(work, "logo.png");
  writeFileSync(logoPath, makeImage({ width: 200, height: 100, format: "png", colour: "0xFF00FF" }));
  const look: BrandLook = { logo: { path: logoPath, width: 200, height: 100 }, logo_position: "bottom-right", logo_scale: 0.2, accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Serif" };
  const source = await probeMedia(join(SHARED_MEDIA, "talking_head_a.mp4"));
  const words: Word[] = "we keep bees on the roof above the bus stop".split(" ").map((word, i) => ({ word, start: 0.5 + i * 0.45, end: 0.85 + i * 0.45, speaker: "Speaker 1" }));
  let plan: SpeakerCropPlan | undefined;
  const formats: ClipFormat[] = ["linkedin", "x"];
  const outs = await renderClipFormats({ source, words, start: 0.5, end: 5.5, style: "bold", look }, formats.map((format) => ({ format, outPath: join(work, `${format}.mp4`) })), { onCropPlan: (p) => (plan = p) });
  for (const [i, format] of formats.entries()) {
    for (const t of [0.2, 2.5, 4.8]) expectLogoIn(await frameAt(outs[i]!, t, FORMATS[format].width, FORMATS[format].height), format, look);
  }
  // The same recording without a brand: no corner is magenta (the picture itself has none).
  const plain = await renderClipFormats({ source, words, start: 0.5, end: 5.5, style: "bold" }, [{ format: "x", outPath: join(work, "plain.mp4") }]);
  const rgb = await frameAt(plain[0]!, 2.5, 1920, 1080);
  for (const corner of CORNERS) expect(near(meanColour(rgb, 1920, logoBox(FORMATS.x, { ...look, logo_position: corner }, look.logo!)), MAGENTA, 40)).toBe(false);

  const covers = await renderClipCovers({
    source, words, start: 0.5, end: 5.5, title: "Bees on the Roof Above the Bus Stop", look, plan,
    rendered: { linkedin: outs[0]!, x: outs[1]! }, outPath: (f) => join(work, `cover_${f}.jpg`),
  });
  for (const format of formats) {
    const { width, height } = FORMATS[format];
    expect(await probeImage(covers[format]!, "jpeg")).toEqual({ kind: "jpeg", width, height });
    const pixels = await frameAt(covers[format]!, 0, width, height, ["-protocol_whitelist", "file", "-f", "jpeg_pipe", "-i", covers[format]!]);
    expectLogoIn(pixels, format, look);
    // The title band: a run of rows of the brand's background (#102030) across the frame's middle, holding accent-orange text.
    let bandRows = 0;
    let orange = 0;
    for (let y = 0; y < height; y++) {
      const left = [...pixels.subarray((y * width + 8) * 3, (y * width + 8) * 3 + 3)];
      if (!near(left, [0x10, 0x20, 0x30], 18)) continue;
      bandRows++;
      for (let x = 0; x < width; x++) {
        const p = pixels.subarray((y * width + x) * 3, (y * width + x) * 3 + 3);
        if (p[0]! > 200 && p[1]! > 100 && p[1]! < 170 && p[2]! < 60) orange++;
      }
    }
    expect(bandRows).toBeGreaterThan(height * 0.08);
    expect(orange).toBeGreaterThan(2000);
  }
}, 300_000);

testShared("an audiogram's logo sits in the corner the kit names, top or bottom, in both formats", async () => {
  const logoPath = join(work, "logo-ag.png");
  writeFileSync(logoPath, makeImage({ width: 200, height: 100, format: "png", colour: "0xFF00FF" }));
  const source = await probeMedia(join(SHARED_MEDIA, "jfk.wav"));
  const words: Word[] = "and so my fellow Americans ask not".split(" ").map((word, i) => ({ word, start: 0.3 + i * 0.5, end: 0.7 + i * 0.5, speaker: "Speaker 1" }));
  for (const [position, format] of [["bottom-right", "linkedin"], ["top-right", "x"], ["bottom-left", "x"]] as const) {
    const look: BrandLook = { logo: { path: logoPath, width: 200, height: 100 }, logo_position: position, logo_scale: 0.2, accent_color: "#FF8800", background_color: "#102030", caption_font: "DejaVu Sans" };
    const [out] = await renderClipFormats({ source, words, start: 0, end: 4, style: "bold", look, card: { title: "Ask Not" } }, [{ format, outPath: join(work, `ag-${position}-${format}.mp4`) }]);
    for (const t of [0.1, 1.7, 3.6]) expectLogoIn(await frameAt(out!, t, FORMATS[format].width, FORMATS[format].height), format, look);
  }
}, 300_000);

const LAN = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "1" };
let app: TestAppliance;
let media: ReturnType<typeof startMediaServer>;
beforeAllShared(async () => {
  media = startMediaServer();
  app = await startAppliance({ env: LAN });
});
afterAllShared(async () => {
  await app?.stop();
  media?.stop();
});

async function fetchTo(url: string, name: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  const path = join(work, name);
  writeFileSync(path, new Uint8Array(await res.arrayBuffer()));
  return path;
}

testShared("a live job renders its audiograms and their covers with the kit it started with; a later kit does not reach its re-render", async () => {
  const key = app.key("brand-e2e", "live");
  const up = await rawUpload(app, key, makeImage({ width: 240, height: 120, format: "png", colour: "0xFF00FF" }));
  // Audiograms run at 25 fps: the 1-s intro is 25 frames, the 0.5-s outro 13 (0.52 s, whole frames).
  const kit = { logo_upload_id: up.json.id, logo_position: "top-left", logo_scale: 0.2, accent_color: "#FF8800", background_color: "#204060", intro_card: { seconds: 1, text: "Rooftop Hours" }, outro_card: { seconds: 0.5 } };
  expect((await app.api("PUT", "/v1/brand", { key, body: kit })).status).toBe(200);
  const body = { source: { type: "video_url", url: media.url("two_speakers_call.wav") }, options: { clip_count: 1, min_clip_seconds: 5, max_clip_seconds: 14 } };
  const submitted = await app.api("POST", "/v1/jobs", { key, body });
  expect(submitted.status).toBe(202);
  const id = submitted.json.id;
  const job = await eventually(async () => (await app.api("GET", `/v1/jobs/${id}`, { key })).json, (j) => j.status === "complete" || j.status === "failed", { timeoutMs: 400_000, what: "the live job" });
  expect(job.status).toBe("complete");
  const clip = job.output.clips[0];
  expect(clip.cards).toEqual({ intro_seconds: 1, outro_seconds: 0.52 });
  const look: BrandLook = { logo: { path: "", width: 240, height: 120 }, logo_position: "top-left", logo_scale: 0.2, accent_color: "#FF8800", background_color: "#204060", caption_font: "DejaVu Sans" };
  const BG = [0x20, 0x40, 0x60];
  for (const format of ["linkedin", "x"] as ClipFormat[]) {
    const { width, height } = FORMATS[format];
    const mp4 = await fetchTo(clip.rendered_urls[format], `job-${format}.mp4`);
    const probed = await ffprobeJson(mp4);
    for (const stream of probed.streams) expect(Math.abs(Number(stream.duration) - (1 + clip.duration_seconds + 0.52))).toBeLessThan(0.06);
    const rgb = await frameAt(mp4, 1 + clip.duration_seconds / 2, width, height);
    expectLogoIn(rgb, format, look);
    // The intro: the kit's background colour with no logo in any corner.
    const intro = await frameAt(mp4, 0.5, width, height);
    for (const corner of CORNERS) expect(near(meanColour(intro, width, logoBox(FORMATS[format], { ...look, logo_position: corner }, look.logo!)), [0x20, 0x40, 0x60], 8)).toBe(true);
    // The card is the kit's background colour, in the corners the logo is not in.
    const px = (x: number, y: number) => [...rgb.subarray((y * width + x) * 3, (y * width + x) * 3 + 3)];
    for (const [x, y] of [[width - 3, 2], [2, height - 3], [width - 3, height - 3]] as const) expect(near(px(x, y), BG, 8)).toBe(true);
    // The cover: a JPEG of the frame's size, served under the share URL like the clip.
    expect(clip.thumbnail_urls[format]).toStartWith(job.output.guest_share_url + "/files/");
    const cover = await fetchTo(clip.thumbnail_urls[format], `job-cover-${format}.jpg`);
    expect(await probeImage(cover, "jpeg")).toEqual({ kind: "jpeg", width, height });
    expectLogoIn(await frameAt(cover, 0, width, height, ["-protocol_whitelist", "file", "-f", "jpeg_pipe", "-i", cover]), format, look);
  }

  // The caption sidecars follow the file: nothing is captioned under the intro, all of it before the outro.
  const srt = cues(await (await fetch(clip.captions_srt_url)).text());
  expect(srt.length).toBeGreaterThan(0);
  expect(srt[0]!.start).toBeGreaterThanOrEqual(1000);
  expect(srt.at(-1)!.end).toBeLessThanOrEqual(Math.round((1 + clip.duration_seconds) * 1000) + 1);

  // The kit moves the logo to the bottom-right corner; the job's re-render keeps the kit it started with.
  expect((await app.api("PUT", "/v1/brand", { key, body: { ...kit, logo_position: "bottom-right" } })).json.logo_position).toBe("bottom-right");
  const asked = await app.api("POST", `/v1/jobs/${id}/clips/${clip.id}/renders`, { key, body: { caption_style: "minimal", formats: ["x"] } });
  expect(asked.status).toBe(202);
  const done = await eventually(async () => (await app.api("GET", `/v1/jobs/${id}`, { key })).json, (j) => ["complete", "failed"].includes(j.output?.clips?.[0]?.render?.status), { timeoutMs: 200_000, what: "the re-render" });
  const after = done.output.clips[0];
  expect(after.render.status).toBe("complete");
  expect(Object.keys(after.thumbnail_urls)).toEqual(["x"]);
  expect(after.thumbnail_urls.x).not.toBe(clip.thumbnail_urls.x);
  const again = await fetchTo(after.rendered_urls.x, "rerendered-x.mp4");
  expectLogoIn(await frameAt(again, 1 + after.duration_seconds / 2, 1920, 1080), "x", look);
  // Its cards too, from the job's snapshot.
  expect(after.cards).toEqual({ intro_seconds: 1, outro_seconds: 0.52 });
  expect(Math.abs(Number((await ffprobeJson(again)).format.duration) - (1 + after.duration_seconds + 0.52))).toBeLessThan(0.06);
  expect(cues(await (await fetch(after.captions_srt_url)).text())[0]!.start).toBeGreaterThanOrEqual(1000);
  // The replaced cover is no longer served.
  expect((await fetch(clip.thumbnail_urls.x)).status).toBe(404);
}, 600_000);

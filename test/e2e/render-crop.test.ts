/**
 * Speaker-following 9:16 crop on a real two-person composition: talking_head_a on the left speaks
 * for 5 s while talking_head_b on the right is a still frame, then the other way round. The active
 * speaker's face must be inside the crop window in >= 90% of sampled instants, and the rendered
 * 9:16 clip must show a face in >= 90% of sampled frames. With a listener who moves (their own
 * video, slowed down and muted: lips moving without their voice) the crop must still stay on the
 * speaker in >= 90% of instants.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { sampleFrames, sampleSize } from "../../src/media/ffmpeg-frames.ts";
import { loadFaceDetector, type FaceRegion } from "../../src/inference/face-detector.ts";
import { detectFaces, planSpeakerCrop } from "../../src/pipeline/render/crop.ts";
import { cropWindowAt } from "../../src/pipeline/render/crop-path.ts";
import { DECISIVE_SYNC, LIP_SYNC_FPS, lipSyncWindows } from "../../src/pipeline/render/lip-sync.ts";
import { TURN_EDGE_SECONDS, turnsFromWords } from "../../src/pipeline/render/faces.ts";
import { renderClip } from "../../src/pipeline/render/render.ts";
import type { MediaInfo, Word } from "../../src/pipeline/types.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { loopedPair, PAIR_SHOTS, pairPan, testPair, type PairOptions } from "../helpers/compositions.ts";
import { beforeAllShared, describeShared } from "../helpers/shared.ts";

const MEDIA = SHARED_MEDIA;
const work = mkdtempSync(join(tmpdir(), "clipyard-crop-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let source: MediaInfo;
/** Diarization of the composition: who speaks when (known by construction). */
const words: Word[] = [
  ...Array.from({ length: 10 }, (_, i) => ({ word: "left", start: 0.2 + i * 0.45, end: 0.6 + i * 0.45, speaker: "Speaker 1" })),
  ...Array.from({ length: 10 }, (_, i) => ({ word: "right", start: 5.2 + i * 0.45, end: 5.6 + i * 0.45, speaker: "Speaker 2" })),
];

beforeAllShared(async () => {
  source = await probeMedia(await testPair(work));
}, 60_000);

describeShared("speaker-following crop", () => {
  test("the active speaker's face is inside the 9:16 window in >= 90% of instants", async () => {
    const plan = await planSpeakerCrop(source, words, 0, 10);
    expect(plan.path.mode).toBe("track");
    expect(plan.path.width).toBe(606);
    // Ground truth faces: the tracks on the left and right half.
    const left = plan.tracks.find((t) => t.obs[0]!.cx < 0.5)!;
    const right = plan.tracks.find((t) => t.obs[0]!.cx > 0.5)!;
    expect(left && right).toBeTruthy();
    expect(plan.speakers.bySpeaker.get("Speaker 1")).toBe(left.id);
    expect(plan.speakers.bySpeaker.get("Speaker 2")).toBe(right.id);
    let inside = 0;
    let total = 0;
    for (let t = 0; t < 10; t += 0.25) {
      const track = t < 5 ? left : right;
      const ob = track.obs.reduce((a, b) => (Math.abs(b.t - t) < Math.abs(a.t - t) ? b : a));
      const [x0, x1] = cropWindowAt(plan.path, t);
      const f0 = (ob.cx - ob.w / 2) * source.width!;
      const f1 = (ob.cx + ob.w / 2) * source.width!;
      total++;
      if (f0 >= x0 && f1 <= x1) inside++;
    }
    expect(inside / total).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  test("a speaker tied to a face decisively by the first lip-sync window gets no second one", async () => {
    // The pair twice over (loopedPair keeps the voice on the lips): two 5 s
    // turns each, so each speaker has two windows to read.
    const looped = await loopedPair(source.path, join(work, "pair-twice.mp4"), 20, { preset: "ultrafast", crf: 20 });
    const twice = await probeMedia(looped);
    const turnWords: Word[] = [];
    for (let t = 0.2; t < 20; t += 0.42) turnWords.push({ word: "word", start: t, end: t + 0.35, speaker: Math.floor(t / 5) % 2 === 0 ? "Speaker 1" : "Speaker 2" });
    const windows = lipSyncWindows(turnsFromWords(turnWords), TURN_EDGE_SECONDS, { start: 0, end: 20 });
    expect(windows.filter((w) => w.rank === 1).length).toBe(2);
    const plan = await planSpeakerCrop(twice, turnWords, 0, 20);
    const firstRound = windows.filter((w) => w.rank === 0).reduce((n, w) => n + Math.round((w.end - w.start) * LIP_SYNC_FPS) + 1, 0);
    // The 2 fps tracking samples, and the first round's windows only.
    expect(plan.framesAnalysed).toBeLessThanOrEqual(41 + firstRound);
    for (const s of ["Speaker 1", "Speaker 2"]) expect(plan.speakers.confidence.get(s)!).toBeGreaterThanOrEqual(DECISIVE_SYNC);
    expect(plan.speakers.bySpeaker.get("Speaker 1")).toBe(plan.tracks.find((t) => t.obs[0]!.cx < 0.5)!.id);
    expect(plan.speakers.bySpeaker.get("Speaker 2")).toBe(plan.tracks.find((t) => t.obs[0]!.cx > 0.5)!.id);
  }, 120_000);

  test("the detector runs every 2 s; FaceMesh alone follows the faces on the samples between", async () => {
    const real = await loadFaceDetector();
    const calls = { find: 0, read: 0 };
    const counting = {
      ...real,
      find: (rgb: Uint8Array, w: number, h: number) => (calls.find++, real.find(rgb, w, h)),
      read: (rgb: Uint8Array, w: number, h: number, r: FaceRegion[]) => (calls.read++, real.read(rgb, w, h, r)),
    };
    const frames = await detectFaces(source, 0, 10, { detector: counting });
    expect(frames.length).toBe(20);
    // Two faces in view throughout: none is lost, so detector passes come every fourth sample.
    expect(calls).toEqual({ find: 5, read: 20 });
    expect(frames.every((f) => f.faces.length === 2)).toBe(true);
  }, 120_000);

  test("a still face reads still across detector passes; a talking one does not", async () => {
    // 0-5 s: the left person talks, the right one is a frozen frame.
    const frames = await detectFaces(source, 0, 5);
    const mouth = (side: (cx: number) => boolean) => frames.map((f) => f.faces.find((o) => side(o.cx))!.mouthOpen!);
    const spread = (xs: number[]) => Math.max(...xs) - Math.min(...xs);
    const still = spread(mouth((cx) => cx > 0.5));
    const talking = spread(mouth((cx) => cx < 0.5));
    console.log(`mouth-opening spread 0-5 s: still face ${still.toFixed(4)}, talking face ${talking.toFixed(4)}`);
    expect(still).toBeLessThan(0.002);
    expect(talking).toBeGreaterThan(0.02);
  }, 120_000);

  test("after a cut, a face in a new place is found on the next sample, not at the next detector pass", async () => {
    // One person stays on the right; at 5 s a cut moves the other from the left to the middle.
    const cut = join(work, "cut.mp4");
    await ffmpeg([
      "-y", ...mediaInput(join(MEDIA, "talking_head_a.mp4")), ...mediaInput(join(MEDIA, "talking_head_b.mp4")),
      "-filter_complex",
      "[0:v]trim=0:10,setpts=PTS-STARTPTS,fps=25,scale=640:640,setsar=1,tpad=stop_mode=clone:stop_duration=10[l];" +
        "[1:v]trim=0:10,setpts=PTS-STARTPTS,fps=25,scale=640:640,setsar=1,tpad=stop_mode=clone:stop_duration=10[r];" +
        "color=c=0x202830:s=1920x1080:r=25:d=10[bg];[bg][l]overlay=x='if(lt(t,5),160,560)':y=220:eval=frame[bl];[bl][r]overlay=1180:220[v]",
      "-map", "[v]", "-t", "10", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "20", cut,
    ]);
    const frames = await detectFaces(await probeMedia(cut), 0, 10);
    const at = (i: number, x0: number, x1: number) => frames[i]!.faces.some((o) => o.cx > x0 && o.cx < x1);
    // Detector passes at 0, 2 and 4 s would next come at 6 s; the 5 s sample loses the moved face.
    for (let i = 0; i < 10; i++) expect(at(i, 0.15, 0.35) && at(i, 0.7, 0.9)).toBe(true);
    for (let i = 11; i < 20; i++) expect(at(i, 0.35, 0.6) && at(i, 0.7, 0.9)).toBe(true);
  }, 120_000);

  test("rendered 9:16 clip keeps a face in frame in >= 90% of sampled frames", async () => {
    const out = await renderClip({ source, words, start: 0, end: 10, format: "linkedin", style: "minimal", outPath: join(work, "crop.mp4") });
    const info = await probeMedia(out);
    expect([info.width, info.height]).toEqual([1080, 1920]);
    const detector = await loadFaceDetector();
    const size = sampleSize({ width: 360, srcWidth: 1080, srcHeight: 1920 });
    let withFace = 0;
    let n = 0;
    for await (const f of sampleFrames(out, { start: 0, duration: 10, fps: 2, width: 360, srcWidth: 1080, srcHeight: 1920 })) {
      n++;
      const faces = await detector.detect(f.rgb, size.width, size.height);
      // A whole face, not a sliver at the edge: wide enough and not touching the sides.
      if (faces.some((d) => d.box[2] > size.width * 0.25 && d.box[0] > 2 && d.box[0] + d.box[2] < size.width - 2)) withFace++;
    }
    expect(n).toBeGreaterThanOrEqual(19);
    expect(withFace / n).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  test("without speaker labels both people stay visible: split panes, a face in each half", async () => {
    const plan = await planSpeakerCrop(source, [], 0, 10);
    expect(plan.path.mode).toBe("split");
    const out = await renderClip({ source, words: [], start: 0, end: 4, format: "linkedin", crop: plan.path, outPath: join(work, "split.mp4") });
    const detector = await loadFaceDetector();
    const size = sampleSize({ width: 360, srcWidth: 1080, srcHeight: 1920 });
    for await (const f of sampleFrames(out, { start: 2, duration: 0.5, fps: 2, width: 360, srcWidth: 1080, srcHeight: 1920 })) {
      const faces = await detector.detect(f.rgb, size.width, size.height);
      const centres = faces.map((d) => (d.box[1] + d.box[3] / 2) / size.height);
      expect(centres.some((c) => c < 0.5)).toBe(true);
      expect(centres.some((c) => c > 0.5)).toBe(true);
    }
  }, 120_000);
});

/**
 * Share of instants (every 0.25 s) at which the speaker's face, about 240 px wide in the middle of
 * its shot (plus the pan), is inside the crop window. The eased move at the change of speaker
 * counts as missed, so 95% is the ceiling on two 5 s turns.
 */
async function speakerInCrop(o: PairOptions): Promise<number> {
  const pair = await probeMedia(await testPair(work, o));
  const plan = await planSpeakerCrop(pair, words, 0, 10);
  let inside = 0;
  let total = 0;
  for (let t = 0; t < 10; t += 0.25) {
    const faceX = (t < 5 ? PAIR_SHOTS.left : PAIR_SHOTS.right) + PAIR_SHOTS.size / 2 + (o.pan ? pairPan(t) : 0);
    const [x0, x1] = cropWindowAt(plan.path, t);
    total++;
    if (faceX - 120 >= x0 && faceX + 120 <= x1) inside++;
  }
  console.log(`listener at ${o.listenerSpeed ?? 0.5}x${o.pan ? ", panning" : ""}: ${plan.path.mode}, speaker in crop ${((100 * inside) / total).toFixed(1)}%, ties ${[...plan.speakers.confidence].map(([s, c]) => `${s} ${c.toFixed(2)}`).join(", ")}`);
  return inside / total;
}

describeShared("speaker-following crop with a listener who moves", () => {
  // Before lip sync (faces tied to speakers by how much their mouths moved) both were at 50%: the
  // crop followed the listener through a whole turn.
  test("listener at 2/3 speed: the crop stays on the speaker in >= 90% of instants", async () => {
    expect(await speakerInCrop({ listener: "moving", listenerSpeed: 0.67 })).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  test("listener at half speed, both shots panning: the crop stays on the speaker in >= 90% of instants", async () => {
    expect(await speakerInCrop({ listener: "moving", listenerSpeed: 0.5, pan: true })).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  // Near their own talking rhythm one 4 s window reads the second speaker's tie at 0.16-0.18 here (0.12,
  // under the crop's 0.15 trust threshold, in an earlier encoding of the pair, when the crop stayed on the
  // listener: 50%); with two faces and two speakers the face left by elimination is theirs either way.
  test("listener at 0.8x speed: the crop stays on the speaker in >= 90% of instants", async () => {
    expect(await speakerInCrop({ listener: "moving", listenerSpeed: 0.8 })).toBeGreaterThanOrEqual(0.9);
  }, 120_000);
});

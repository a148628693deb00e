/**
 * Speaker-following crop for the 9:16 format: samples frames a few times per second, detects faces
 * (with mouth opening), tracks them, ties tracks to the diarized speakers and plans the crop path.
 */
import { sampleFrames, sampleSize } from "../../media/ffmpeg-frames.ts";
import { loadFaceDetector, type FaceDetector, type FaceRegion } from "../../inference/face-detector.ts";
import { assignSpeakers, attachLipReadings, buildTracks, TURN_EDGE_SECONDS, distinctFaces, regionsToRead, turnsFromWords, type FaceObs, type FaceTrack, type SpeakerFaces, type Turn } from "./faces.ts";
import { planCropPath } from "./crop-path.ts";
import { DECISIVE_SYNC, LIP_SYNC_FPS, lipSyncWindows, speechEnvelope, type SpeechEnvelope } from "./lip-sync.ts";
import { decodeWindow } from "../../media/decode-audio.ts";
import { scratchDir } from "../../scratch.ts";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { CropPath } from "./graph.ts";
import type { MediaInfo, Word } from "../types.ts";

export interface SpeakerCropPlan {
  path: CropPath;
  tracks: FaceTrack[];
  speakers: SpeakerFaces;
  turns: Turn[];
  /** Frames read: the tracking samples and the lip-sync windows' samples. */
  framesAnalysed: number;
}

export interface SpeakerCropOptions {
  sampleFps: number;
  analysisWidth: number;
  /**
   * Seconds between detector passes (default 2). BlazeFace finds faces; FaceMesh alone follows them
   * on the samples between, at about a third of a detector pass's cost (MediaPipe's own face mesh
   * runs its detector only when tracking is lost; Human's video mode every 2.5 s). A sample that
   * loses a face gets a detector pass straight away, so a cut costs at most one sample.
   */
  detectEverySeconds: number;
  detector?: FaceDetector;
  /** Decode every frame so each sample is exactly at its time (see SampleOptions.exact). */
  exact?: boolean;
}

/** Detects faces in sampled frames of [start, end] of a video source, in normalised coordinates. */
export async function detectFaces(source: MediaInfo, start: number, end: number, o: Partial<SpeakerCropOptions> = {}): Promise<{ t: number; faces: FaceObs[] }[]> {
  if (!source.hasVideo || !source.width || !source.height) throw new Error(`${source.path} has no video to analyse`);
  const sampleFps = o.sampleFps ?? 2;
  const width = Math.min(o.analysisWidth ?? 512, source.width);
  const size = sampleSize({ width, srcWidth: source.width, srcHeight: source.height });
  const detectEvery = o.detectEverySeconds ?? 2;
  const detector = o.detector ?? (await loadFaceDetector());
  const frames: { t: number; faces: FaceObs[] }[] = [];
  let regions: FaceRegion[] = [];
  let lastDetect = -Infinity;
  for await (const f of sampleFrames(source.path, { start, duration: end - start, fps: sampleFps, width, srcWidth: source.width, srcHeight: source.height, exact: o.exact })) {
    // Small tolerance: sample times are start + i/fps and must not miss a pass by rounding.
    const due = regions.length === 0 || f.t - lastDetect >= detectEvery - 1e-6;
    const toRead = due ? regionsToRead(await detector.find(f.rgb, size.width, size.height), regions) : regions;
    const found = await detector.read(f.rgb, size.width, size.height, toRead);
    const faces = distinctFaces(found);
    if (due) lastDetect = f.t;
    else if (faces.length < regions.length) lastDetect = -Infinity;
    regions = faces.map((d) => d.next);
    frames.push({
      t: f.t,
      faces: faces.map((d) => ({
        t: f.t,
        cx: (d.box[0] + d.box[2] / 2) / size.width,
        cy: (d.box[1] + d.box[3] / 2) / size.height,
        w: d.box[2] / size.width,
        h: d.box[3] / size.height,
        score: d.score,
        mouthOpen: d.mouthOpen,
      })),
    });
  }
  return frames;
}

/** The audio's loudness over [start, end] at 16 kHz, decoded in a scratch folder removed after. */
async function speechOf(source: MediaInfo, start: number, end: number): Promise<SpeechEnvelope> {
  const dir = await scratchDir("render");
  try {
    const pcm = await decodeWindow(source.path, { start, duration: end - start }, join(dir, "speech.wav"), 16000);
    return speechEnvelope(pcm.samples, pcm.sampleRate, start);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function planSpeakerCrop(source: MediaInfo, words: Word[], start: number, end: number, o: Partial<SpeakerCropOptions> = {}): Promise<SpeakerCropPlan> {
  const frames = await detectFaces(source, start, end, o);
  const tracks = buildTracks(frames);
  const turns = turnsFromWords(words.filter((w) => w.end > start && w.start < end));
  // Whose face is talking is read from lip sync with the voice: mouths read again, densely enough to
  // see syllables and at their exact times, in a few windows of each speaker's turns. One face needs
  // no deciding; without audio there is no voice to follow, and the tracking samples' motion does.
  let speech: SpeechEnvelope | undefined;
  let lipFrames = 0;
  if (tracks.length > 1 && turns.length > 0 && source.hasAudio) {
    speech = await speechOf(source, start, end);
    const windows = lipSyncWindows(turns, TURN_EDGE_SECONDS, { start, end });
    // Each speaker's longest turn first; the second windows only where that did not decide.
    for (const rank of [...new Set(windows.map((w) => w.rank))].sort((a, b) => a - b)) {
      if (rank > 0) {
        const tied = assignSpeakers(tracks, turns, speech);
        if (windows.every((w) => (tied.confidence.get(w.speaker) ?? 0) >= DECISIVE_SYNC)) break;
      }
      for (const w of windows.filter((x) => x.rank === rank)) {
        const dense = await detectFaces(source, w.start, w.end, { ...o, sampleFps: LIP_SYNC_FPS, exact: true });
        attachLipReadings(tracks, dense);
        lipFrames += dense.length;
      }
    }
  }
  const speakers = assignSpeakers(tracks, turns, speech);
  const path = planCropPath({ tracks, speakers, turns, srcWidth: source.width!, srcHeight: source.height!, start, end });
  return { path, tracks, speakers, turns, framesAnalysed: frames.length + lipFrames };
}

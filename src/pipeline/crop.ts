/**
 * Speaker-following crop for the 9:16 format: samples frames a few times per second, detects faces
 * (with mouth opening), tracks them, ties tracks to the diarized speakers and plans the crop path.
 */
import { sampleFrames, sampleSize } from "../media/ffmpeg-frames.ts";
import { loadFaceDetector, type FaceDetector } from "../models/face-detector.ts";
import { assignSpeakers, buildTracks, turnsFromWords, type FaceObs, type FaceTrack, type SpeakerFaces, type Turn } from "./faces.ts";
import { planCropPath } from "./crop-path.ts";
import type { CropPath } from "./render-graph.ts";
import type { MediaInfo, Word } from "./types.ts";

export interface SpeakerCropPlan {
  path: CropPath;
  tracks: FaceTrack[];
  speakers: SpeakerFaces;
  turns: Turn[];
  framesAnalysed: number;
}

export interface SpeakerCropOptions {
  sampleFps: number;
  analysisWidth: number;
  detector?: FaceDetector;
}

/** Detects faces in sampled frames of [start, end] of a video source, in normalised coordinates. */
export async function detectFaces(source: MediaInfo, start: number, end: number, o: Partial<SpeakerCropOptions> = {}): Promise<{ t: number; faces: FaceObs[] }[]> {
  if (!source.hasVideo || !source.width || !source.height) throw new Error(`${source.path} has no video to analyse`);
  const sampleFps = o.sampleFps ?? 2;
  const width = Math.min(o.analysisWidth ?? 512, source.width);
  const size = sampleSize({ width, srcWidth: source.width, srcHeight: source.height });
  const detector = o.detector ?? (await loadFaceDetector());
  const frames: { t: number; faces: FaceObs[] }[] = [];
  for await (const f of sampleFrames(source.path, { start, duration: end - start, fps: sampleFps, width, srcWidth: source.width, srcHeight: source.height })) {
    const faces = await detector.detect(f.rgb, size.width, size.height);
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

export async function planSpeakerCrop(source: MediaInfo, words: Word[], start: number, end: number, o: Partial<SpeakerCropOptions> = {}): Promise<SpeakerCropPlan> {
  const frames = await detectFaces(source, start, end, o);
  const tracks = buildTracks(frames);
  const turns = turnsFromWords(words.filter((w) => w.end > start && w.start < end));
  const speakers = assignSpeakers(tracks, turns);
  const path = planCropPath({ tracks, speakers, turns, srcWidth: source.width!, srcHeight: source.height!, start, end });
  return { path, tracks, speakers, turns, framesAnalysed: frames.length };
}

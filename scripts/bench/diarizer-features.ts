/**
 * What the speaker models make of a recording, as the pipeline computes it (Silero's regions joined
 * with the segmentation model's speech, its chunks and overlap, CAM++ over the embedding windows, the
 * windows' music flags and Silero means): the input the clustering runs on. Benches cache it as JSON so
 * settings of the clustering compare in seconds (diarize-sweep.ts, degraded.ts).
 */
import { openWav } from "../../src/media/wav.ts";
import { resolveModel } from "../../src/models/store.ts";
import { embeddingWindows } from "../../src/pipeline/transcribe/diarize-embeddings.ts";
import { SEGMENTATION_MODEL, SEGMENTATION_OVERLAP, SEGMENTATION_SPEECH, SPEAKER_EMBEDDING_MODEL } from "../../src/pipeline/transcribe/diarize.ts";
import { planSpeakerEngine, segmentationProbabilities, speakerEmbeddings } from "../../src/pipeline/transcribe/speaker-engine.ts";
import { speechProbabilities } from "../../src/pipeline/transcribe/vad-engine.ts";
import { meanVoice, musicWindows } from "../../src/pipeline/transcribe/music-windows.ts";
import { mergeRegions, speechRegions, type Region } from "../../src/pipeline/transcribe/vad.ts";

export interface DiarizerFeatures {
  regions: Region[];
  speech: Region[];
  overlap: Region[];
  frames: { chunks: Array<{ start: number; classes: string }>; frameSeconds: number; firstFrameSeconds: number };
  duration: number;
  windows: Array<{ start: number; end: number }>;
  embeddings: number[][];
  /** Per window, music or singing (music-windows.ts), Silero's confident speech excepted. */
  music: boolean[];
  /** Per window, Silero's mean probability of speech. */
  voice: number[];
}

/** The features of the speech WAV at `wav` (decoded as the pipeline decodes, read through `audio`); `windowing` is the embedding windows' length and hop. */
export async function diarizerFeatures(wav: string, audio: ReturnType<typeof openWav>, windowing: [number, number] = [1.5, 0.75]): Promise<DiarizerFeatures> {
  const duration = audio.length / audio.sampleRate;
  const vad = await speechProbabilities(wav, audio, resolveModel("silero-vad"));
  const plan = await planSpeakerEngine();
  const seg = await segmentationProbabilities(plan, resolveModel(SEGMENTATION_MODEL), wav, audio);
  const speech = speechRegions(seg.speech, seg.frame_seconds, duration, SEGMENTATION_SPEECH);
  const overlap = speechRegions(seg.overlap, seg.frame_seconds, duration, SEGMENTATION_OVERLAP);
  const regions = mergeRegions([...speechRegions(vad.probs, vad.frame_seconds, duration), ...speech]);
  const windows = embeddingWindows(regions, ...windowing);
  const embeddings = await speakerEmbeddings(plan, resolveModel(SPEAKER_EMBEDDING_MODEL), wav, audio, windows.map((w) => [w.start, w.end]));
  const voice = { probs: vad.probs, frameSeconds: vad.frame_seconds };
  const frames = { chunks: seg.chunks, frameSeconds: seg.frame_seconds, firstFrameSeconds: seg.first_frame_seconds };
  return { regions, speech, overlap, frames, duration, windows, embeddings, music: musicWindows(audio, windows, voice), voice: windows.map((w) => meanVoice(voice, w)) };
}

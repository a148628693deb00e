/**
 * The optional models the default pipeline uses when they are there, and what a job loses without
 * each: `clipyard models pull` fetches them with the required ones (so the single executable gives
 * the same speakers and topics as the source checkout), `models list` and `doctor` say what a
 * missing one costs. The manifest's other optional entries are extras nothing loads unless asked.
 */
import { DEFAULT_EMBEDDING_MODEL } from "../inference/embedder.ts";
import { SEGMENTATION_MODEL, SPEAKER_EMBEDDING_MODEL } from "./transcribe/diarize.ts";

export const PIPELINE_OPTIONAL_MODELS: Readonly<Record<string, string>> = {
  [SPEAKER_EMBEDDING_MODEL]: "speaker labels from MFCC clustering instead (DER 54.2 % against 31.0 % on the AMI meeting openings)",
  [SEGMENTATION_MODEL]: "no overlapped-speech detection, and quiet far-field speakers the VAD misses stay unlabelled",
  [DEFAULT_EMBEDDING_MODEL]: "topic segmentation and clip centrality from TF-IDF word overlap instead of sentence embeddings",
};

/** What a model's absence costs, for `models list`: required, a quality loss, or nothing by default. */
export function missingCost(m: { name: string; optional: boolean; internetOnly?: boolean }): string {
  if (!m.optional) return "required: jobs need it";
  return PIPELINE_OPTIONAL_MODELS[m.name] ?? (m.internetOnly ? "nothing by default: a bigger recogniser for --model / CLIPYARD_ASR_MODEL" : "nothing by default: not used by jobs");
}

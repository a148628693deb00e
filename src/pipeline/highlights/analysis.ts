/**
 * One pass over a transcript that both clip selection and show notes read: sentences, their wink
 * tags and hook features, sentence vectors (embeddings when given, TF-IDF otherwise), centrality and
 * chapters. Computed once per episode.
 */
import { analyzeSentences, type SentenceNlp } from "./nlp.ts";
import { sentenceFeatures, sentenceInterest, type SentenceFeatures } from "./features.ts";
import { splitSentences, type Sentence } from "./sentences.ts";
import { centrality, lexicalVectors, segmentTopics, type Chapter, type Vector } from "./topics.ts";
import type { Transcript } from "../types.ts";

/** Sentence embeddings computed by an Embedder, aligned with splitSentences(transcript.words, transcript.language). */
export interface SentenceEmbeddings {
  model: string;
  vectors: Vector[];
}

export interface EpisodeAnalysis {
  /** The transcript's language, which chose the text rules (language/rules.ts). */
  language: string;
  sentences: Sentence[];
  nlp: SentenceNlp[];
  features: SentenceFeatures[];
  interest: number[];
  vectors: Vector[];
  /** "embeddings:<model>" or "lexical-tfidf" — which similarity the topic signals used. */
  vectorSource: string;
  centrality: number[];
  chapters: Chapter[];
}

export function analyzeTranscript(transcript: Transcript, embeddings?: SentenceEmbeddings): EpisodeAnalysis {
  const sentences = splitSentences(transcript.words, transcript.language);
  const nlp = analyzeSentences(sentences.map((s) => s.text), transcript.language);
  const features = sentences.map((s, i) => sentenceFeatures(s.text, nlp[i]!));
  const interest = features.map(sentenceInterest);
  let vectors: Vector[];
  let vectorSource: string;
  if (embeddings) {
    if (embeddings.vectors.length !== sentences.length) {
      throw new Error(`sentence embeddings do not match the transcript: ${embeddings.vectors.length} vectors for ${sentences.length} sentences`);
    }
    vectors = embeddings.vectors;
    vectorSource = `embeddings:${embeddings.model}`;
  } else {
    vectors = lexicalVectors(nlp);
    vectorSource = "lexical-tfidf";
  }
  return {
    language: transcript.language,
    sentences,
    nlp,
    features,
    interest,
    vectors,
    vectorSource,
    centrality: centrality(vectors),
    chapters: segmentTopics(sentences, vectors, nlp, { speakerNames: transcript.speakerNames, language: transcript.language }),
  };
}

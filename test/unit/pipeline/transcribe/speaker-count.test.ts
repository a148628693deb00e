import { expect, test } from "bun:test";
import { clusterEmbeddings } from "../../../../src/pipeline/transcribe/diarize-embeddings.ts";
import { linkedClusters, localSpeakerTags } from "../../../../src/pipeline/transcribe/speaker-count.ts";
import type { LocalFrames } from "../../../../src/pipeline/transcribe/diarize-local.ts";

/** Deterministic pseudo-random numbers so the tests cannot flake. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/**
 * Two voices closer together than the clustering threshold assumes (a far-field room: every embedding
 * shares the room's direction), `n` windows each, alternating in 5 s halves of 10 s chunks.
 */
function closeVoices(n: number, seed = 7) {
  const r = rng(seed);
  const dim = 32;
  const room = Array.from({ length: dim }, (_, d) => (d === 0 ? 1 : 0));
  const voice = [1, 2].map((axis) => Array.from({ length: dim }, (_, d) => (d === axis ? 0.45 : 0)));
  const embeddings: number[][] = [];
  const voiceOf: number[] = [];
  const windows: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < 2 * n; i++) {
    // Within each 10 s chunk: voice 0 talks alone 0-5 s, voice 1 alone 5-10 s; windows of 1.5 s every 1.75 s.
    const chunk = Math.floor(i / 4);
    const k = i % 4;
    const v = k < 2 ? 0 : 1;
    const start = chunk * 10 + (v === 0 ? 0.5 : 5.5) + (k % 2) * 1.75;
    windows.push({ start, end: start + 1.5 });
    embeddings.push(room.map((x, d) => x + voice[v]![d]! + 0.15 * (r() - 0.5)));
    voiceOf.push(v);
  }
  return { embeddings, voiceOf, windows };
}

/** Chunks of 10 s at 0.1 s frames: local speaker 1 (class "1") alone the first half, local speaker 2 (class "2") the second. */
function halves(chunks: number, first = "1", second = "2"): LocalFrames {
  return {
    chunks: Array.from({ length: chunks }, (_, c) => ({ start: c * 10, classes: first.repeat(50) + second.repeat(50) })),
    frameSeconds: 0.1,
    firstFrameSeconds: 0,
  };
}

test("windows take the local speaker that talks alone over them; a window across a change or in overlap takes none", () => {
  const local = halves(1);
  const tags = localSpeakerTags(
    [
      { start: 0.5, end: 2 },
      { start: 6, end: 7.5 },
      { start: 4.5, end: 6 },
    ],
    local,
  );
  expect(tags[0]).toEqual([0]);
  expect(tags[1]).toEqual([1]);
  expect(tags[2]).toEqual([]);
  const overlap: LocalFrames = { chunks: [{ start: 0, classes: "4".repeat(100) }], frameSeconds: 0.1, firstFrameSeconds: 0 };
  expect(localSpeakerTags([{ start: 0.5, end: 2 }], overlap)[0]).toEqual([]);
});

test("a local speaker heard alone under a second (a cough, one word) links nothing", () => {
  const local: LocalFrames = { chunks: [{ start: 0, classes: "1".repeat(92) + "2".repeat(8) }], frameSeconds: 0.1, firstFrameSeconds: 0 };
  const tags = localSpeakerTags([{ start: 0, end: 1.5 }, { start: 9.2, end: 10 }], local);
  expect(tags[1]).toEqual([]);
  expect(localSpeakerTags([{ start: 9.2, end: 10 }], local, { minSoloSeconds: 0.5 })[0]).toEqual([1]);
});

test("two voices the threshold would merge stay two people when the segmentation model hears them apart in one chunk", () => {
  const { embeddings, voiceOf, windows } = closeVoices(12);
  // Without links, the room's shared direction puts both voices under the threshold: one person.
  expect(new Set(clusterEmbeddings(embeddings)).size).toBe(1);
  const tags = localSpeakerTags(windows, halves(6));
  const labels = clusterEmbeddings(embeddings, {}, [], undefined, tags);
  expect(new Set(labels).size).toBe(2);
  // Each voice is one cluster, and the two clusters differ.
  expect(new Set(labels.filter((_, i) => voiceOf[i] === 0)).size).toBe(1);
  expect(new Set(labels.filter((_, i) => voiceOf[i] === 1)).size).toBe(1);
  expect(labels[0]).not.toBe(labels[2]);
});

test("links never split one voice: the same local speaker over a whole chunk says nothing about the count", () => {
  const { embeddings, windows } = closeVoices(12);
  const oneSpeaker = halves(6, "1", "1");
  expect(new Set(clusterEmbeddings(embeddings, {}, [], undefined, localSpeakerTags(windows, oneSpeaker))).size).toBe(1);
});

test("linked clustering stops at the threshold, and a count asked for is reached even against the links", () => {
  // Items 0,1 close, 2,3 close, the pairs far apart; 0 and 1 heard as two local speakers of chunk 0.
  const dist = [
    [0, 0.1, 0.9, 0.9],
    [0.1, 0, 0.9, 0.9],
    [0.9, 0.9, 0, 0.1],
    [0.9, 0.9, 0.1, 0],
  ];
  const none = [[], [], [], []];
  expect(linkedClusters(dist, none, { threshold: 0.5 })).toEqual([0, 0, 1, 1]);
  expect(linkedClusters(dist, [[0], [1], [], []], { threshold: 0.5 })).toEqual([0, 1, 2, 2]);
  // Tags of two different chunks are no link.
  expect(linkedClusters(dist, [[0], [4], [], []], { threshold: 0.5 })).toEqual([0, 0, 1, 1]);
  expect(new Set(linkedClusters(dist, [[0], [1], [], []], { clusters: 2 })).size).toBe(2);
  expect(linkedClusters(dist, [[0], [1], [], []], { clusters: 1 })).toEqual([0, 0, 0, 0]);
  expect(linkedClusters([], [], { threshold: 0.5 })).toEqual([]);
});

/** Counting speakers from embeddings: who is a person, and who is music, overlap or a single window. */
import { expect, test } from "bun:test";
import { clusterEmbeddings, confidentSeconds, diarizeFromEmbeddings, givenCountOfPeople, MUSIC_LABEL, type Window } from "../../../../src/pipeline/transcribe/diarize-embeddings.ts";
import { withoutRegions } from "../../../../src/pipeline/transcribe/vad.ts";

/** Deterministic pseudo-random numbers so the tests cannot flake. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}
const DIM = 64;
/** Voices as clusters of unit vectors: a direction each, plus noise (same voice ~0.8 cosine, others ~0). */
function voices(count: number, seed: number) {
  const r = rng(seed);
  const unit = () => {
    const v = Array.from({ length: DIM }, () => r() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const dirs = Array.from({ length: count }, unit);
  return (voice: number) => {
    const noise = unit();
    return dirs[voice]!.map((x, d) => x + 0.5 * noise[d]!);
  };
}

/** Windows of 1.5 s every 0.75 s: `perVoice[v]` windows of voice v, one voice after another. */
function timeline(perVoice: number[], seed = 3) {
  const v = voices(perVoice.length, seed);
  const windows: Window[] = [];
  const embeddings: number[][] = [];
  const voiceOf: number[] = [];
  perVoice.forEach((n, voice) => {
    for (let i = 0; i < n; i++) {
      const t = windows.length * 0.75;
      windows.push({ start: t, end: t + 1.5 });
      embeddings.push(v(voice));
      voiceOf.push(voice);
    }
  });
  return { windows, embeddings, voiceOf };
}

const count = (labels: number[]) => new Set(labels).size;

test("a voice heard only where the segmentation model hears no speech (music, singing, laughter) is not a person", () => {
  // Two people, then 8 windows (6.75 s) of a third "voice" the segmentation model does not call speech.
  const { windows, embeddings, voiceOf } = timeline([20, 20, 8]);
  const musicFrom = windows[40]!.start;
  const speech: Array<[number, number]> = [[0, musicFrom]];
  expect(count(clusterEmbeddings(embeddings, {}, []))).toBe(3);
  const labels = clusterEmbeddings(embeddings, {}, [], { windows, regions: speech });
  expect(count(labels)).toBe(2);
  // The people keep their own windows.
  expect(count(labels.filter((_, i) => voiceOf[i] === 0))).toBe(1);
  expect(labels[0]).not.toBe(labels[25]);
  // The same third voice, where the segmentation model does hear speech, is a person.
  expect(count(clusterEmbeddings(embeddings, {}, [], { windows, regions: [[0, 100]] }))).toBe(3);
});

test("a voice whose windows are mostly music is not a person, and nobody speaks where it plays", () => {
  // Two people, then 8 windows of a theme tune the segmentation model calls speech (it does, for tones and singing).
  const { windows, embeddings, voiceOf } = timeline([20, 20, 8]);
  const regions: Array<[number, number]> = [[0, 100]];
  const people = (labels: number[]) => count(labels.filter((l) => l !== MUSIC_LABEL));
  const tune = voiceOf.map((v) => v === 2);
  expect(people(clusterEmbeddings(embeddings, {}, [], { windows, regions }))).toBe(3);
  const labels = clusterEmbeddings(embeddings, {}, [], { windows, regions, music: tune });
  expect(people(labels)).toBe(2);
  expect(labels.filter((_, i) => voiceOf[i] === 2).every((l) => l === MUSIC_LABEL)).toBe(true);
  expect(labels.filter((_, i) => voiceOf[i] !== 2).every((l) => l !== MUSIC_LABEL)).toBe(true);
  expect(labels[0]).not.toBe(labels[25]);
  // Half of it music is enough (a sung verse has a held note between words); under half is not.
  const half = voiceOf.map((v, i) => v === 2 && i % 2 === 0);
  expect(people(clusterEmbeddings(embeddings, {}, [], { windows, regions, music: half }))).toBe(2);
  const third = voiceOf.map((v, i) => v === 2 && i % 3 === 0);
  expect(clusterEmbeddings(embeddings, {}, [], { windows, regions, music: third })).not.toContain(MUSIC_LABEL);
  expect(people(clusterEmbeddings(embeddings, {}, [], { windows, regions, music: third }))).toBe(3);
  // A person with a few windows over music (talking over the tune) stays a person, and keeps those windows.
  const overTune = voiceOf.map((v, i) => v === 1 && i % 4 === 0);
  const talking = clusterEmbeddings(embeddings, {}, [], { windows, regions, music: overTune });
  expect(people(talking)).toBe(3);
  expect(talking).not.toContain(MUSIC_LABEL);
  // A given count is of people too: the tune takes none of its places.
  const given = clusterEmbeddings(embeddings, { numSpeakers: 2 }, [], { windows, regions, music: tune });
  expect(people(given)).toBe(2);
  expect(given[0]).not.toBe(given[25]);
});

test("music windows are not confident speech", () => {
  const windows: Window[] = [
    { start: 0, end: 1.5 },
    { start: 2, end: 3.5 },
  ];
  const regions: Array<[number, number]> = [[0, 10]];
  expect(confidentSeconds({ windows, regions }, [0, 1])).toBeCloseTo(3, 6);
  expect(confidentSeconds({ windows, regions, music: [true, false] }, [0, 1])).toBeCloseTo(1.5, 6);
  expect(confidentSeconds({ windows, regions, music: [true, true] }, [0, 1])).toBe(0);
  // Where Silero's means are given, windows under `minVoice` do not count (the benches' --min-voice; off by default).
  expect(confidentSeconds({ windows, regions, voice: [0.2, 0.9] }, [0, 1], 0.5)).toBeCloseTo(1.5, 6);
  expect(confidentSeconds({ windows, regions, voice: [0.2, 0.9] }, [0, 1])).toBeCloseTo(3, 6);
});

test("a cluster needs a second of confident speech: one heard in overlap only is not counted", () => {
  const { windows, embeddings } = timeline([20, 20, 4]);
  const overlapStart = windows[40]!.start;
  const regions = withoutRegions([[0, 100]], [[overlapStart, 100]]);
  expect(count(clusterEmbeddings(embeddings, {}, [], { windows, regions }))).toBe(2);
  expect(count(clusterEmbeddings(embeddings, { minSpeakerSeconds: 0 }, [], { windows, regions }))).toBe(3);
});

test("a person who says one sentence (one window of confident speech) is counted unaided; without that evidence, or in overlap, not", () => {
  // meeting_trn06: "Aren't they suing you?" (1.1 s) is the only thing a third person says.
  const { windows, embeddings, voiceOf } = timeline([20, 1, 20]);
  const labels = clusterEmbeddings(embeddings, {}, [], { windows, regions: [[0, 100]] });
  expect(count(labels)).toBe(3);
  expect(labels[20]).not.toBe(labels[0]);
  expect(labels[20]).not.toBe(labels[30]);
  expect(count(labels.filter((_, i) => voiceOf[i] === 0))).toBe(1);
  // Without the segmentation model's word a single window is too easily a cough: two windows needed.
  expect(count(clusterEmbeddings(embeddings, {}))).toBe(2);
  // The window heard only in overlap (no confident speech) is not a person either.
  const lone = windows[20]!;
  expect(count(clusterEmbeddings(embeddings, {}, [], { windows, regions: withoutRegions([[0, 100]], [[lone.start, lone.end]]) }))).toBe(2);
});

test("on a long recording a person needs 1 % of the windows: 4 of 300 count, 2 do not", () => {
  // Four minutes of two people, and a third who speaks twice for a few seconds (4 windows, 1.3 %).
  const { windows, embeddings, voiceOf } = timeline([148, 4, 148]);
  const speech = { windows, regions: [[0, 1000]] as Array<[number, number]> };
  const labels = clusterEmbeddings(embeddings, {}, [], speech);
  expect(count(labels)).toBe(3);
  expect(count(labels.filter((_, i) => voiceOf[i] === 1))).toBe(1);
  // A burst of 2 windows (0.7 %) is no one, however clear.
  const burst = timeline([149, 2, 149]);
  expect(count(clusterEmbeddings(burst.embeddings, {}, [], { windows: burst.windows, regions: [[0, 1000]] }))).toBe(2);
  // At the former 2 % the 4-window person was no one either.
  expect(count(clusterEmbeddings(embeddings, { minClusterShare: 0.02 }, [], speech))).toBe(2);
});

test("a given count is kept even where a voice has a single window", () => {
  const { embeddings } = timeline([20, 1, 20]);
  expect(count(clusterEmbeddings(embeddings, {}))).toBe(2);
  expect(count(clusterEmbeddings(embeddings, { numSpeakers: 3 }))).toBe(3);
  expect(count(clusterEmbeddings(embeddings, { numSpeakers: 2 }))).toBe(2);
});

/**
 * Two people whose voices are closer to each other than to an odd voice heard `oddWindows` times before
 * them: embeddings of the odd voice's windows, then 15 of each person's, 0.75 s apart.
 */
function twoCloseVoicesAfterAnOdd(seed: number, oddWindows: number) {
  const r = rng(seed);
  const unit = () => {
    const v = Array.from({ length: DIM }, () => r() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const shared = unit();
  const a = unit().map((x, d) => x + 1.2 * shared[d]!);
  const b = unit().map((x, d) => x + 1.2 * shared[d]!);
  const odd = unit();
  const near = (dir: number[]) => {
    const noise = unit();
    return dir.map((x, d) => x + 0.3 * noise[d]!);
  };
  const embeddings = [...Array.from({ length: oddWindows }, () => near(odd)), ...Array.from({ length: 15 }, () => near(a)), ...Array.from({ length: 15 }, () => near(b))];
  const windows: Window[] = embeddings.map((_, i) => ({ start: i * 0.75, end: i * 0.75 + 1.5 }));
  return { embeddings, windows };
}

test("a given count is of people: a window of noise does not take a place, a quiet voice the segmentation model hears does", () => {
  // Two people whose voices are closer to each other than to a single odd window before the talk
  // (meeting_trn04: noise at 6 s, then two men): cut at two, the tree gives {noise} and {both men}.
  const { embeddings, windows } = twoCloseVoicesAfterAnOdd(11, 1);
  const noiseOnly = { windows, regions: [[1.5, 100]] as Array<[number, number]> };
  const labels = clusterEmbeddings(embeddings, { numSpeakers: 2 }, [], noiseOnly);
  expect(count(labels)).toBe(2);
  // The two men are the two speakers; the odd window joins one of them.
  expect(labels[1]).not.toBe(labels[16]);
  expect(count(labels.slice(1, 16))).toBe(1);
  expect(count(labels.slice(16))).toBe(1);
  // Where the segmentation model hears speech in the odd window it may be the quiet person the count
  // promised (meeting_trn03: one window, 1.5 s), and it keeps its place.
  const heard = clusterEmbeddings(embeddings, { numSpeakers: 2 }, [], { windows, regions: [[0, 100]] });
  expect(count(heard)).toBe(2);
  expect(heard[0]).not.toBe(heard[1]);
  expect(heard[1]).toBe(heard[16]);
});

test("under a given count, time that is no one's speech (a laugh that took a place) gives the place to a person", () => {
  // Two similar voices, and before them 6 windows of a laugh the segmentation model calls speech.
  const { embeddings, windows } = twoCloseVoicesAfterAnOdd(5, 6);
  const regions: Array<[number, number]> = [[0, 28.5]];
  const words = [2, 8, 14, 20, 25].map((t) => ({ start: t, end: t + 0.3 }));
  const local = { frames: { chunks: [], frameSeconds: 0.017, firstFrameSeconds: 0 }, duration: 28.5, speech: regions };
  const voiceAt = (out: { speakers: string[] }) => out.speakers;
  // The laugh holds one of the two places: both people are one voice.
  const before = diarizeFromEmbeddings(regions, windows, embeddings, words, { numSpeakers: 2 }, [], local);
  expect(voiceAt(before)[2]).toBe(voiceAt(before)[3]);
  expect(voiceAt(before)[0]).not.toBe(voiceAt(before)[2]);
  // Told the laugh's time is no one's speech, the two places go to the two people.
  const after = diarizeFromEmbeddings(regions, windows, embeddings, words, { numSpeakers: 2, notSpeech: [[0, 5.25]] }, [], local);
  expect(voiceAt(after)[2]).not.toBe(voiceAt(after)[3]);
});

test("givenCountOfPeople takes the first cut with that many people, and gives up past its limit", () => {
  // Cuts of a tree: k clusters; cluster 0 is an outlier at every cut, the rest are people.
  const labelsFor = (k: number) => Array.from({ length: 12 }, (_, i) => (i === 0 ? 0 : 1 + (i % (k - 1 || 1))));
  const people = (labels: number[]) => [...new Set(labels)].filter((c) => c !== 0);
  expect(givenCountOfPeople(3, 12, labelsFor, people)?.kept.length).toBe(3);
  expect(new Set(givenCountOfPeople(3, 12, labelsFor, people)!.labels).size).toBe(4);
  expect(givenCountOfPeople(3, 3, labelsFor, people)).toBeUndefined();
});

test("confident seconds count overlapping windows once; regions less the overlap", () => {
  const windows = [{ start: 0, end: 1.5 }, { start: 0.75, end: 2.25 }, { start: 10, end: 11.5 }];
  expect(confidentSeconds({ windows, regions: [[0, 100]] }, [0, 1])).toBeCloseTo(2.25, 6);
  expect(confidentSeconds({ windows, regions: [[1, 10.5]] }, [0, 1, 2])).toBeCloseTo(1.75, 6);
  expect(withoutRegions([[0, 10], [12, 14]], [[2, 3], [9, 12.5]])).toEqual([[0, 2], [3, 9], [12.5, 14]]);
});

test("where only music plays the activity names nobody, and a word placed there takes the nearest speech's voice", () => {
  const { windows, embeddings, voiceOf } = timeline([8, 20, 20]);
  const tune = voiceOf.map((v) => v === 0);
  const regions: Array<[number, number]> = [[0, windows[windows.length - 1]!.end]];
  const duration = regions[0]![1];
  // Whisper's first word after a theme tune is often placed at 0 s; the next words are the first person's.
  const words = [
    { start: 0, end: 0.6 },
    { start: windows[9]!.start, end: windows[9]!.start + 0.4 },
  ];
  const r = diarizeFromEmbeddings(regions, windows, embeddings, words, {}, [], { frames: { chunks: [], frameSeconds: 0.017, firstFrameSeconds: 0 }, duration, speech: regions, music: tune });
  expect(new Set(r.activity.map((a) => a.speaker)).size).toBe(2);
  // The first speech window starts at 6 s, inside the tune's last window (5.25-6.75 s): nobody before it.
  expect(Math.min(...r.activity.map((a) => a.start))).toBeCloseTo(windows[8]!.start, 2);
  expect(r.speakers).toEqual(["Speaker 1", "Speaker 1"]);
  // Without the music flags the tune is a voice of its own, with the word in it.
  const before = diarizeFromEmbeddings(regions, windows, embeddings, words, {}, [], { frames: { chunks: [], frameSeconds: 0.017, firstFrameSeconds: 0 }, duration, speech: regions });
  expect(new Set(before.activity.map((a) => a.speaker)).size).toBe(3);
  expect(before.speakers[0]).not.toBe(before.speakers[1]);
});

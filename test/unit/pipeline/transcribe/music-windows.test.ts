/** Music against speech by the share of low-energy frames: constructed signals with known answers. */
import { expect, test } from "bun:test";
import { lowEnergyShare, MUSIC_EDGE_SHARE, MUSIC_LOW_ENERGY_SHARE, MUSIC_MAX_VOICE, musicStretches, musicWarnings, musicWindows } from "../../../../src/pipeline/transcribe/music-windows.ts";
import type { PcmSource } from "../../../../src/media/wav.ts";

const SR = 16000;

function signal(seconds: number, at: (t: number) => number): Float32Array {
  return Float32Array.from({ length: Math.round(seconds * SR) }, (_, i) => at(i / SR));
}

/** A held chord: three partials at a steady level. */
const chord = (t: number) => 0.2 * (Math.sin(2 * Math.PI * 220 * t) + Math.sin(2 * Math.PI * 277 * t) + Math.sin(2 * Math.PI * 330 * t));
/** Syllables: a voiced tone on for 150 ms of every 250 ms (4 a second), near silence between. */
const syllables = (t: number) => (t % 0.25 < 0.15 ? 0.5 * Math.sin(2 * Math.PI * 150 * t) : 0.002 * Math.sin(2 * Math.PI * 3000 * t));

function source(samples: Float32Array): PcmSource {
  return { sampleRate: SR, length: samples.length, read: (start, n) => samples.subarray(Math.max(0, start), Math.min(samples.length, start + n)) };
}

test("a held chord has no low-energy frames; syllables at four a second have many; silence is not music", () => {
  expect(lowEnergyShare(signal(1.5, chord), SR)).toBeLessThan(MUSIC_LOW_ENERGY_SHARE);
  expect(lowEnergyShare(signal(1.5, syllables), SR)).toBeGreaterThan(0.3);
  expect(lowEnergyShare(new Float32Array(SR), SR)).toBe(1);
  // A drum under the chord (a beat every half second) leaves it music.
  const beat = (t: number) => chord(t) + (t % 0.5 < 0.03 ? 0.8 * Math.sin(2 * Math.PI * 60 * t) : 0);
  expect(lowEnergyShare(signal(1.5, beat), SR)).toBeLessThan(MUSIC_LOW_ENERGY_SHARE);
});

test("windows are judged one by one, and a window under half a second is never music", () => {
  const audio = signal(6, (t) => (t < 3 ? chord(t) : syllables(t)));
  const flags = musicWindows(source(audio), [
    { start: 0, end: 1.5 },
    { start: 1.5, end: 3 },
    { start: 3, end: 4.5 },
    { start: 4.5, end: 6 },
    { start: 0.5, end: 1.2 },
    { start: 1, end: 1.4 },
  ]);
  expect(flags).toEqual([true, true, false, false, true, false]);
});

test("music stretches: three seconds of music windows, across Silero's cuts, unless most of the speech would go", () => {
  // 0-8 s a chord (cut by Silero into two pieces), 8-20 s syllables.
  const audio = source(signal(20, (t) => (t < 8 ? chord(t) : syllables(t))));
  const stretches = musicStretches(audio, [
    [0, 3.5],
    [4.2, 8],
    [8, 20],
  ]);
  expect(stretches.length).toBe(1);
  expect(stretches[0]![0]).toBe(0);
  expect(stretches[0]![1]).toBeGreaterThanOrEqual(7.5);
  expect(stretches[0]![1]).toBeLessThanOrEqual(8.75);
  // Two seconds of chord is a held note, not a tune.
  const held = source(signal(12, (t) => (t >= 4 && t < 6 ? chord(t) : syllables(t))));
  expect(musicStretches(held, [[0, 12]])).toEqual([]);
  // Mostly music (a song, or speech under loud steady noise): nothing is cut.
  const song = source(signal(20, (t) => (t < 14 ? chord(t) : syllables(t))));
  expect(musicStretches(song, [[0, 20]])).toEqual([]);
  expect(musicStretches(song, [[0, 20]], { maxShare: 1 }).length).toBe(1);
  expect(musicWarnings([[0, 8.2]])).toEqual(["music, not transcribed: 0.0-8.2 s"]);
});

test("a stretch takes in the tune's fading edges, not the speech beside it", () => {
  // A tune that fades in over its first half second, cut by Silero at 1.5 s, then talk from 9 s.
  const fadeIn = (t: number) => chord(t) * Math.min(1, t / 0.5);
  const audio = source(signal(20, (t) => (t < 9 ? fadeIn(t) : syllables(t))));
  const first = lowEnergyShare(signal(1.5, fadeIn), SR);
  expect(first).toBeGreaterThanOrEqual(MUSIC_LOW_ENERGY_SHARE);
  expect(first).toBeLessThan(MUSIC_EDGE_SHARE);
  const stretches = musicStretches(audio, [
    [0, 1.5],
    [1.65, 9],
    [9.1, 20],
  ]);
  // Before, the fade's own piece was left to the recogniser: a second of music whisper wrote words for.
  expect(stretches).toEqual([[0, 9]]);
  // The fade alone is no tune: a stretch needs its three seconds of music windows first.
  const short = source(signal(12, (t) => (t < 2 ? fadeIn(t) : syllables(t))));
  expect(musicStretches(short, [[0, 12]])).toEqual([]);
});

test("a window Silero is sure is speech is never music: talk over a loud bed keeps its words", () => {
  // 20 s of steady sound (a bed loud enough to fill the talk's pauses); Silero sure of speech from 8 s.
  const audio = source(signal(20, chord));
  const frameSeconds = 0.032;
  const voice = { frameSeconds, probs: Float32Array.from({ length: Math.ceil(20 / frameSeconds) }, (_, i) => (i * frameSeconds >= 8 ? 1 : 0.5)) };
  const windows = [
    { start: 0, end: 1.5 },
    { start: 10, end: 11.5 },
  ];
  expect(musicWindows(audio, windows)).toEqual([true, true]);
  expect(musicWindows(audio, windows, voice)).toEqual([true, false]);
  // The stretch stops within a window of where the talk starts, and does not take the talk in as a fading edge.
  const [stretch] = musicStretches(audio, [[0, 20]], { maxShare: 1, voice });
  expect(stretch![0]).toBe(0);
  expect(stretch![1]).toBeGreaterThan(7.5);
  expect(stretch![1]).toBeLessThanOrEqual(9.5);
  expect(musicStretches(audio, [[0, 20]], { maxShare: 1 })).toEqual([[0, 20]]);
  expect(MUSIC_MAX_VOICE).toBeLessThan(1);
});

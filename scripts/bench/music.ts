#!/usr/bin/env bun
/**
 * Speakers with music: real conversations with real music before and after them (a theme tune) or
 * under them (a bed), through the whole transcription (`transcribeFile`, default recogniser), and per
 * mix the speakers the transcript shows (those who own words) against the people who talk, the
 * diarizer's count and DER where the speech has a reference, the words written where only music
 * plays (lyrics, or whisper's guesses), and the changes of speaker that fall on a sentence end.
 * Nothing here has a reference for music, so the music comes from Debian's game soundtracks (fetched
 * with `apt-get download` into --music-dir on first use): the tuning split is drascula-music (short
 * synth and pop tracks, one with a sung verse), the held-out split wesnoth-1.16-music (orchestral, one
 * choral piece with sung Latin words).
 *
 *   nice bun scripts/bench/music.ts [--music-dir /tmp/clipyard-music] [--model whisper-base]
 *     [--split tuning|held-out|both] [--arrangements intro,bed,loud-bed] [--windows-only]
 *
 * First, without any model (--windows-only stops there): how many 1.5 s windows every 0.75 s sound
 * like music by music-windows.ts, over 30 s of every track of both packages and over the speech at
 * hand (the shared recordings' reference speech, the bundled sample, LibriVox from
 * pocketsphinx-testdata when installed).
 *
 * Each mix: both parts loudness-normalised to -20 LUFS; "intro" is 12 s of the track (from 20 s in,
 * faded out over its last 2 s), the speech, then 8 s more of the track (from 40 s in); "bed" is the
 * same intro, then the speech with the track under it 16.5 dB down (volume 0.15) to 8 s past its end;
 * "loud-bed" (not run unless asked) the same with the track 6 dB down (volume 0.5), loud enough to fill
 * the talk's pauses. Each mix also reports the seconds of talk left out of recognition as music.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { openWav } from "../../src/media/wav.ts";
import { lowEnergyShare, MUSIC_LOW_ENERGY_SHARE } from "../../src/pipeline/transcribe/music-windows.ts";
import { diarizationErrorRate, parseRttm, turnSentenceStats, wordErrorRate } from "./asr-scoring.ts";
import { conversations, debianPackages, filesUnder, SHARED, type Conversation } from "./mix-sources.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const musicDir = arg("music-dir") ?? join(tmpdir(), "clipyard-music");
const model = arg("model") ?? "whisper-base";
const splitArg = arg("split") ?? "both";
type Arrangement = "intro" | "bed" | "loud-bed";
const arrangements = (arg("arrangements") ?? "intro,bed").split(",") as Arrangement[];
/** How far under the talk the bed plays: 16.5 dB ("bed"), or 6 dB ("loud-bed", loud enough to fill the talk's pauses). */
const BED_VOLUME = { bed: 0.15, "loud-bed": 0.5 };

const INTRO_SECONDS = 12;
const OUTRO_SECONDS = 8;

/** Chosen before measuring: each split's vocal track, and tracks of other kinds (synth, percussive, orchestral). */
const TRACKS = {
  tuning: ["drascula/audio/track1", "drascula/audio/track2", "drascula/audio/track5", "drascula/audio/track11"],
  "held-out": ["music/battle", "music/traveling_minstrels", "music/nunc_dimittis", "music/elvish-theme", "music/northerners", "music/legends_of_the_north"],
} as const;
const PACKAGES = ["drascula-music", "wesnoth-1.16-music"];

type Speech = Conversation;

/** Every track of both packages, by path without ".ogg". */
const found = new Map<string, string>();

function ensureMusic(): Map<string, string> {
  for (const p of filesUnder(debianPackages(musicDir, PACKAGES), (p) => p.endsWith(".ogg"))) found.set(p.replace(/\.ogg$/, ""), p);
  const byTrack = new Map<string, string>();
  for (const id of [...TRACKS.tuning, ...TRACKS["held-out"]]) {
    const hit = [...found].find(([k]) => k.endsWith(`/${id}`));
    if (!hit) throw new Error(`${id}.ogg not found under ${musicDir}/x`);
    byTrack.set(id, hit[1]);
  }
  return byTrack;
}

async function mix(music: string, speech: Speech, out: string, arrangement: Arrangement): Promise<void> {
  if (existsSync(out)) return;
  const speechSeconds = speech.seconds;
  const norm = "aformat=sample_rates=16000:channel_layouts=mono,loudnorm=I=-20";
  const intro = `[m1]atrim=20:${20 + INTRO_SECONDS},asetpts=PTS-STARTPTS,afade=t=in:d=0.5,afade=t=out:st=${INTRO_SECONDS - 2}:d=2[intro]`;
  const graph =
    arrangement === "intro"
      ? `[0:a]${norm},asplit[m1][m2];${intro};[m2]atrim=40:${40 + OUTRO_SECONDS},asetpts=PTS-STARTPTS,afade=t=in:d=1,afade=t=out:st=${OUTRO_SECONDS - 2}:d=2[outro];[1:a]${norm}[sp];[intro][sp][outro]concat=n=3:v=0:a=1`
      : `[0:a]${norm},asplit[m1][m2];${intro};[m2]atrim=40:${(40 + speechSeconds + OUTRO_SECONDS).toFixed(3)},asetpts=PTS-STARTPTS,volume=${BED_VOLUME[arrangement]}[bed];[1:a]${norm},apad=pad_dur=${OUTRO_SECONDS}[sp];[sp][bed]amix=inputs=2:duration=first:normalize=0[under];[intro][under]concat=n=2:v=0:a=1`;
  await ffmpeg(["-y", ...mediaInput(music), ...mediaInput(speech.path), "-filter_complex", graph, "-ar", "16000", "-ac", "1", out]);
}

interface Row {
  split: string;
  track: string;
  speech: string;
  arrangement: string;
  people: number;
  shown: number;
  diarized: number;
  der?: number;
  /** WER of all the words against what was said (insertions in the music count), and the language detected. */
  wer?: { errors: number; words: number };
  language: string;
  musicWords: number;
  /** Seconds of the talk left out of recognition as music (the transcript's "music, not transcribed" warning). */
  talkCut: number;
  /** Changes of speaker between words, and how many fall on a sentence end (issue 31's turn figure). */
  changes: number;
  changesAtSentenceEnd: number;
}

const byTrack = ensureMusic();
const work = join(musicDir, "mixes");
mkdirSync(work, { recursive: true });

/** Shares of low-energy frames of the 1.5 s windows (every 0.75 s) of a file; `keep` picks the windows that count. */
async function windowShares(path: string, from = 0, seconds = Infinity, keep: (start: number, end: number) => boolean = () => true): Promise<number[]> {
  const wav = join(work, "windows.wav");
  const cut = join(work, "cut.wav");
  await ffmpeg(["-y", ...(from ? ["-ss", String(from)] : []), ...mediaInput(path), ...(Number.isFinite(seconds) ? ["-t", String(seconds)] : []), "-ac", "1", "-ar", "16000", cut]);
  await decodeToSpeechWav(cut, wav);
  const audio = openWav(wav);
  try {
    const out: number[] = [];
    const n = Math.round(1.5 * audio.sampleRate);
    for (let a = 0; a + n <= audio.length; a += Math.round(0.75 * audio.sampleRate)) {
      const samples = audio.read(a, n);
      let e = 0;
      for (const x of samples) e += x * x;
      if (Math.sqrt(e / n) < 1e-3 || !keep(a / audio.sampleRate, a / audio.sampleRate + 1.5)) continue;
      out.push(lowEnergyShare(samples, audio.sampleRate));
    }
    return out;
  } finally {
    audio.close();
  }
}

{
  const groups: Array<{ group: string; files: number; shares: number[]; mostly: number }> = [];
  const add = (group: string, shares: number[]) => {
    if (!shares.length) return;
    let g = groups.find((x) => x.group === group);
    if (!g) groups.push((g = { group, files: 0, shares: [], mostly: 0 }));
    g.files++;
    g.shares.push(...shares);
    if (shares.filter((x) => x < MUSIC_LOW_ENERGY_SHARE).length >= shares.length / 2) g.mostly++;
  };
  for (const [id, path] of [...found].sort()) add(id.includes("/drascula/") ? "drascula-music (tuning)" : "wesnoth-1.16-music (held-out)", await windowShares(path, 15, 30));
  for (const name of ["two_speakers_call", "jfk", "meeting_excerpt", ...[3, 4, 5, 6, 7, 8, 9].map((i) => `meeting_trn0${i}`)]) {
    const path = join(SHARED, `${name}.wav`);
    if (!existsSync(path)) continue;
    const rttm = join(SHARED, `${name}.rttm`);
    const ref = existsSync(rttm) ? parseRttm(readFileSync(rttm, "utf8")) : undefined;
    // With a reference, only windows that are 80 % speech.
    const keep = (a: number, b: number) => !ref || ref.reduce((s, t) => s + Math.max(0, Math.min(b, t.end) - Math.max(a, t.start)), 0) >= 1.2;
    add("speech: shared recordings", await windowShares(path, 0, Infinity, keep));
  }
  add("speech: bundled sample", await windowShares(join(import.meta.dir, "../../fixtures/sample/rooftop-hours.m4a")));
  const libri = "/usr/share/pocketsphinx/test/data/librivox";
  if (existsSync(libri)) for (const f of readdirSync(libri).filter((f) => f.endsWith(".wav"))) add("speech: LibriVox", await windowShares(join(libri, f)));
  console.log(`windows like music (under ${MUSIC_LOW_ENERGY_SHARE * 100} % of frames below half the mean energy), 1.5 s every 0.75 s`);
  console.log("| source | files | windows | like music | lowest share | files mostly like music |");
  console.log("|---|---|---|---|---|---|");
  for (const g of groups) {
    const like = g.shares.filter((x) => x < MUSIC_LOW_ENERGY_SHARE).length;
    console.log(`| ${g.group} | ${g.files} | ${g.shares.length} | ${((100 * like) / g.shares.length).toFixed(1)}% | ${Math.min(...g.shares).toFixed(2)} | ${g.mostly}/${g.files} |`);
  }
  console.log("");
  if (process.argv.includes("--windows-only")) process.exit(0);
}
const speeches = await conversations(work);
const splits = (splitArg === "both" ? ["tuning", "held-out"] : [splitArg]) as Array<keyof typeof TRACKS>;
const rows: Row[] = [];
/** Seconds of [from, to] inside the stretches a "music, not transcribed: a-b s, …" warning names. */
const talkCut = (warnings: string[], from: number, to: number) =>
  warnings
    .filter((w) => w.startsWith("music, not transcribed: "))
    .flatMap((w) => [...w.matchAll(/([\d.]+)-([\d.]+) s/g)].map((m) => [Number(m[1]), Number(m[2])]))
    .reduce((sum, [a, b]) => sum + Math.max(0, Math.min(b!, to) - Math.max(a!, from)), 0);
const turnsOf = (words: Array<{ word: string; start: number; end: number; speaker: string }>) => {
  const t = turnSentenceStats(words);
  return { changes: t.changes, changesAtSentenceEnd: t.changesAtSentenceEnd };
};
for (const split of splits) {
  for (const track of TRACKS[split]) {
    for (const sp of speeches) {
      for (const arrangement of arrangements) {
        const out = join(work, `${track.replace(/\W+/g, "_")}.${sp.name}.${arrangement}.wav`);
        await mix(byTrack.get(track)!, sp, out, arrangement);
        const t = await transcribeFile(out, { model });
        const speechEnd = INTRO_SECONDS + sp.seconds;
        const shown = new Set(t.words.map((w) => w.speaker)).size;
        const activity = t.speakerActivity ?? [];
        const row: Row = {
          split,
          track: track.split("/").pop()!,
          speech: sp.name,
          arrangement,
          people: sp.people,
          shown,
          diarized: new Set(activity.map((a) => a.speaker)).size,
          language: t.language,
          musicWords: t.words.filter((w) => (w.start + w.end) / 2 < INTRO_SECONDS - 0.5 || (w.start + w.end) / 2 > speechEnd + 0.5).length,
          talkCut: talkCut(t.warnings ?? [], INTRO_SECONDS, speechEnd),
          ...turnsOf(t.words),
        };
        if (sp.text) {
          const w = wordErrorRate(sp.text, t.words.map((x) => x.word).join(" "));
          row.wer = { errors: w.substitutions + w.deletions + w.insertions, words: w.refWords };
        }
        if (sp.reference) {
          const shifted = sp.reference.map((r) => ({ ...r, start: r.start + INTRO_SECONDS, end: r.end + INTRO_SECONDS }));
          row.der = diarizationErrorRate(shifted, activity).der;
        }
        rows.push(row);
        process.stderr.write(`${split} ${row.track} ${sp.name} ${arrangement}: shown ${shown}/${sp.people}, diarized ${row.diarized}\n`);
      }
    }
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
console.log(`speakers with music — ${model}, ${rows.length} mixes`);
const werOf = (rs: Row[]) => {
  const w = rs.filter((r) => r.wer);
  return w.length ? pct(w.reduce((s, r) => s + r.wer!.errors, 0) / w.reduce((s, r) => s + r.wer!.words, 0)) : "-";
};
const turnEnds = (rs: Row[]) => {
  const changes = rs.reduce((s, r) => s + r.changes, 0);
  return changes ? `${pct(rs.reduce((s, r) => s + r.changesAtSentenceEnd, 0) / changes)} of ${changes}` : "-";
};
console.log("| split | track | speech | arrangement | people | in transcript | diarizer | DER (activity) | WER | language | words where only music plays | turn ends on a sentence end | talk not recognised (s) |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const r of rows) console.log(`| ${r.split} | ${r.track} | ${r.speech} | ${r.arrangement} | ${r.people} | ${r.shown} | ${r.diarized} | ${r.der === undefined ? "-" : pct(r.der)} | ${werOf([r])} | ${r.language} | ${r.musicWords} | ${turnEnds([r])} | ${r.talkCut.toFixed(1)} |`);
console.log("\n| split | arrangement | speech | mixes | transcript count exact | diarizer count exact | mean DER (activity) | WER (pooled) | not English | words where only music plays | turn ends on a sentence end | talk not recognised (s) |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const split of splits) {
  for (const arrangement of arrangements.length > 1 ? [...arrangements, "all"] : arrangements) for (const speech of [...speeches.map((s) => s.name), "all"]) {
    const rs = rows.filter((r) => r.split === split && (arrangement === "all" || r.arrangement === arrangement) && (speech === "all" || r.speech === speech));
    if (!rs.length) continue;
    const ders = rs.filter((r) => r.der !== undefined).map((r) => r.der!);
    console.log(
      `| ${split} | ${arrangement} | ${speech} | ${rs.length} | ${rs.filter((r) => r.shown === r.people).length}/${rs.length} | ${rs.filter((r) => r.diarized === r.people).length}/${rs.length} | ${ders.length ? pct(ders.reduce((a, b) => a + b, 0) / ders.length) : "-"} | ${werOf(rs)} | ${rs.filter((r) => r.language !== "en").length} | ${rs.reduce((s, r) => s + r.musicWords, 0)} | ${turnEnds(rs)} | ${rs.reduce((s, r) => s + r.talkCut, 0).toFixed(1)} |`,
    );
  }
}
process.exit(0);

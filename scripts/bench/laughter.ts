#!/usr/bin/env bun
/**
 * Speakers with laughter: real conversations with real laughs put into their pauses (someone laughs
 * between two lines, no one talking over it), through the whole transcription (`transcribeFile`,
 * default recogniser), and per mix the speakers the transcript shows (those who own words) against the
 * people who talk, the diarizer's count, the words written inside the laughs, the talk's words given to
 * a "speaker" who is mostly laughter, and DER (the diarizer's activity and the transcript's segments)
 * where the speech has a reference (the laughs count as no one's speech, as AMI's references leave them
 * out). Nothing here has a reference for laughter, so the laughs come from Debian packages (fetched
 * with `apt-get download` into --laugh-dir on first use): the tuning split is hedgewars-data's voice
 * packs (actors' laughs, the robot's left out), the held-out split the laughs of scratch (recorded
 * people), ktuberling-data, trackballs-data, btanks-data and monsterz-data.
 *
 *   nice bun scripts/bench/laughter.ts [--laugh-dir /tmp/clipyard-laughs] [--model whisper-base]
 *     [--split tuning|held-out|both] [--per-mix 4] [--verbose] [--kind laughter|applause] [--given]
 *
 * `--given` transcribes each two-person mix with the job option `speakers` set to 2, so the table says
 * whether a laugh takes one of the places the caller gave.
 *
 * Each mix: the speech and each laugh loudness-normalised to -20 LUFS, the laugh 2 dB under that; the
 * speech is cut in its longest pauses (the reference's gaps between turns where there is one, else
 * ffmpeg's silencedetect 12 dB under the mean volume), at least 4 s apart, and one laugh goes into each cut. Every laugh
 * of a split is used once per conversation (--per-mix laughs a mix). `--kind applause` does the same
 * with an audience's applause and cheering (tuning: monsterz-data, frozen-bubble-data, circuslinux-data;
 * held out: tuxmath-data, lmms-common, foobillardplus-data). Names below say "laugh" for whatever
 * --kind puts into the pauses: with applause, a "laugh" is a burst of applause, and the table's
 * columns, --laugh-dir and --verbose's "in laughs" mean it.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { diarizationErrorRate, turnSentenceStats, type Turn } from "./asr-scoring.ts";
import { conversations, debianPackages, filesUnder, type Conversation } from "./mix-sources.ts";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const laughDir = arg("laugh-dir") ?? join(tmpdir(), "clipyard-laughs");
const model = arg("model") ?? "whisper-base";
const given = process.argv.includes("--given");
const splitArg = arg("split") ?? "both";
const perMix = Number(arg("per-mix") ?? 4);
/** How far under the talk's loudness a laugh plays (2 dB): as loud as a voice in the room. */
const LAUGH_VOLUME = 0.8;
/** Cuts at least this far apart (seconds), so that each laugh has talk on both sides. */
const MIN_APART = 4;

/** Chosen by name before measuring: which packages' sounds tune and which are held out, per kind of sound. */
const KINDS = {
  laughter: {
    tuning: { packages: ["hedgewars-data"], pick: (p: string) => /\/voices\/[^/]+\/Laugh\.ogg$/.test(p) && !p.includes("/Robot/") },
    "held-out": {
      packages: ["scratch", "ktuberling-data", "trackballs-data", "btanks-data", "monsterz-data"],
      pick: (p: string) => /Human\/Laugh-|tux-laugh|say-laugh|sfx\/\w*laugh|sounds\/laugh0|sound\/laugh\.wav/.test(p),
    },
  },
  // An audience: applause and cheering between the lines (a studio show).
  applause: {
    tuning: { packages: ["monsterz-data", "frozen-bubble-data", "circuslinux-data"], pick: (p: string) => /\/(applause|cheering)\.(wav|ogg)$/.test(p) },
    "held-out": { packages: ["tuxmath-data", "lmms-common", "foobillardplus-data"], pick: (p: string) => /\/(cheer|applause01|applause)\.(wav|ogg)$/.test(p) },
  },
} as const;
const kind = (arg("kind") ?? "laughter") as keyof typeof KINDS;
const SPLITS = KINDS[kind];
type Split = keyof typeof SPLITS;
const splits: Split[] = splitArg === "both" ? ["tuning", "held-out"] : [splitArg as Split];

function ensureLaughs(split: Split): string[] {
  const { packages, pick } = SPLITS[split];
  const laughs = filesUnder(debianPackages(laughDir, [...packages]), pick);
  if (!laughs.length) throw new Error(`no ${kind} of the ${split} split under ${laughDir}/x`);
  return laughs;
}

/** A conversation and where its laughs go: pause midpoints, seconds into the speech. */
type Speech = Conversation & { cuts: number[] };

/** The longest pauses, at least MIN_APART from each other and from the ends, as midpoints in time order. */
function pickCuts(pauses: Array<{ start: number; end: number }>, seconds: number): number[] {
  const cuts: number[] = [];
  for (const p of [...pauses].sort((a, b) => b.end - b.start - (a.end - a.start))) {
    const mid = (p.start + p.end) / 2;
    if (mid < 2 || mid > seconds - 2 || cuts.some((c) => Math.abs(c - mid) < MIN_APART)) continue;
    cuts.push(mid);
  }
  return cuts.sort((a, b) => a - b);
}

/** Pauses between the reference's turns (no one speaking). */
function referencePauses(ref: Turn[]): Array<{ start: number; end: number }> {
  const sorted = [...ref].sort((a, b) => a.start - b.start);
  const out: Array<{ start: number; end: number }> = [];
  let reach = 0;
  for (const t of sorted) {
    if (t.start > reach + 0.05 && reach > 0) out.push({ start: reach, end: t.start });
    reach = Math.max(reach, t.end);
  }
  return out;
}

/** Pauses of 0.3 s or more, 12 dB under the file's mean volume (recordings differ in level and noise floor). */
async function silences(path: string): Promise<Array<{ start: number; end: number }>> {
  const mean = Number(/mean_volume: (-?[\d.]+) dB/.exec((await ffmpeg([...mediaInput(path), "-af", "volumedetect", "-f", "null", "-"])).stderr)?.[1] ?? -20);
  const text = (await ffmpeg([...mediaInput(path), "-af", `silencedetect=n=${mean - 12}dB:d=0.3`, "-f", "null", "-"])).stderr;
  const out: Array<{ start: number; end: number }> = [];
  for (const m of text.matchAll(/silence_end: ([\d.]+) \| silence_duration: ([\d.]+)/g)) out.push({ start: Number(m[1]) - Number(m[2]), end: Number(m[1]) });
  return out;
}

async function speeches(work: string): Promise<Speech[]> {
  const out: Speech[] = [];
  for (const c of await conversations(work)) {
    const pauses = c.reference ? referencePauses(c.reference) : await silences(c.path);
    out.push({ ...c, cuts: pickCuts(pauses, c.seconds) });
  }
  return out;
}

/** The speech cut at `cuts` with one laugh in each cut; returns where each laugh lies in the mix. */
async function mix(speech: Speech, laughs: string[], out: string): Promise<Array<{ start: number; end: number }>> {
  const norm = "aformat=sample_rates=16000:channel_layouts=mono,loudnorm=I=-20";
  const durations = await Promise.all(laughs.map(async (l) => (await probeMedia(l, { requireAudio: true })).durationSeconds));
  const cuts = speech.cuts.slice(0, laughs.length);
  const edges = [0, ...cuts];
  let graph = `[0:a]${norm},asplit=${edges.length}${edges.map((_, i) => `[s${i}]`).join("")};`;
  edges.forEach((from, i) => {
    const to = cuts[i];
    graph += `[s${i}]atrim=start=${from.toFixed(3)}${to === undefined ? "" : `:end=${to.toFixed(3)}`},asetpts=PTS-STARTPTS[p${i}];`;
  });
  cuts.forEach((_, i) => (graph += `[${i + 1}:a]${norm},volume=${LAUGH_VOLUME}[l${i}];`));
  graph += `${edges.map((_, i) => `[p${i}]${i < cuts.length ? `[l${i}]` : ""}`).join("")}concat=n=${edges.length + cuts.length}:v=0:a=1`;
  if (!existsSync(out)) await ffmpeg(["-y", ...mediaInput(speech.path), ...laughs.slice(0, cuts.length).flatMap((l) => mediaInput(l)), "-filter_complex", graph, "-ar", "16000", "-ac", "1", out]);
  let shift = 0;
  return cuts.map((c, i) => {
    const span = { start: c + shift, end: c + shift + durations[i]! };
    shift += durations[i]!;
    return span;
  });
}

/** A reference turn's times in the mix: every laugh before it pushes it later. */
function shiftReference(ref: Turn[], cuts: number[], spans: Array<{ start: number; end: number }>): Turn[] {
  const at = (t: number) => t + spans.reduce((s, span, i) => s + (cuts[i]! <= t ? span.end - span.start : 0), 0);
  return ref.map((r) => ({ ...r, start: at(r.start), end: at(r.end) }));
}

interface Row {
  split: Split;
  speech: string;
  laughs: number;
  people: number;
  shown: number;
  diarized: number;
  der?: number;
  /** DER of the transcript's segments (as the API gives them), where the speech has a reference. */
  transcriptDer?: number;
  /** Words whose middle lies inside a laugh. */
  laughWords: string[];
  /** Words of the talk (outside the laughs) given to a speaker whose activity is mostly laughs. */
  takenWords: string[];
  changes: number;
  changesAtSentenceEnd: number;
}

const work = join(laughDir, "mixes");
mkdirSync(work, { recursive: true });
const convos = await speeches(work);
const rows: Row[] = [];
const inside = (t: number, spans: Array<{ start: number; end: number }>) => spans.some((s) => t >= s.start && t < s.end);
for (const split of splits) {
  const laughs = ensureLaughs(split);
  for (const sp of convos) {
    const per = Math.min(perMix, sp.cuts.length);
    if (!per) {
      process.stderr.write(`${sp.name}: no pause to put a laugh in; left out\n`);
      continue;
    }
    for (let m = 0; m * per < laughs.length; m++) {
      const chosen = Array.from({ length: per }, (_, k) => laughs[(m * per + k) % laughs.length]!);
      const out = join(work, `${kind === "laughter" ? "" : `${kind}.`}${split}.${sp.name}.${m}.wav`);
      const spans = await mix(sp, chosen, out);
      // (The job option takes 2-10; jfk's one voice is left to the count.)
      const t = await transcribeFile(out, { model, speakers: given && sp.people >= 2 ? sp.people : undefined });
      const activity = t.speakerActivity ?? [];
      // A speaker is "the laughs" when most of their activity lies inside them.
      const laughSpeakers = new Set(
        [...new Set(activity.map((a) => a.speaker))].filter((s) => {
          let all = 0;
          let inLaughs = 0;
          for (const a of activity.filter((x) => x.speaker === s)) {
            all += a.end - a.start;
            for (const l of spans) inLaughs += Math.max(0, Math.min(a.end, l.end) - Math.max(a.start, l.start));
          }
          return inLaughs > all / 2;
        }),
      );
      const mid = (w: { start: number; end: number }) => (w.start + w.end) / 2;
      const st = turnSentenceStats(t.words);
      const row: Row = {
        split,
        speech: sp.name,
        laughs: spans.length,
        people: sp.people,
        shown: new Set(t.words.map((w) => w.speaker)).size,
        diarized: new Set(activity.map((a) => a.speaker)).size,
        laughWords: t.words.filter((w) => inside(mid(w), spans)).map((w) => w.word.trim()),
        takenWords: t.words.filter((w) => !inside(mid(w), spans) && laughSpeakers.has(w.speaker)).map((w) => w.word.trim()),
        changes: st.changes,
        changesAtSentenceEnd: st.changesAtSentenceEnd,
      };
      if (sp.reference) {
        const reference = shiftReference(sp.reference, sp.cuts, spans);
        row.der = diarizationErrorRate(reference, activity).der;
        row.transcriptDer = diarizationErrorRate(reference, t.segments).der;
      }
      rows.push(row);
      process.stderr.write(`${split} ${sp.name} ${m}: shown ${row.shown}/${sp.people}, diarized ${row.diarized}, laugh words [${row.laughWords.join(" ")}], taken [${row.takenWords.join(" ")}]\n`);
      if (process.argv.includes("--verbose")) {
        process.stderr.write(`  laughs ${spans.map((l) => `${l.start.toFixed(1)}-${l.end.toFixed(1)}`).join(" ")}\n`);
        for (const s of new Set(activity.map((a) => a.speaker))) {
          const own = activity.filter((a) => a.speaker === s);
          const secs = own.reduce((x, a) => x + a.end - a.start, 0);
          const inL = own.reduce((x, a) => x + spans.reduce((y, l) => y + Math.max(0, Math.min(a.end, l.end) - Math.max(a.start, l.start)), 0), 0);
          const words = t.words.filter((w) => w.speaker === s);
          process.stderr.write(`  ${s}: ${secs.toFixed(1)} s, ${inL.toFixed(1)} in laughs; ${words.length} words: ${words.slice(0, 12).map((w) => `${w.word.trim()}@${w.start.toFixed(1)}`).join(" ")}\n`);
        }
      }
    }
  }
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const turnEnds = (rs: Row[]) => {
  const changes = rs.reduce((s, r) => s + r.changes, 0);
  return changes ? `${pct(rs.reduce((s, r) => s + r.changesAtSentenceEnd, 0) / changes)} of ${changes}` : "-";
};
console.log(`speakers with ${kind} — ${model}, ${rows.length} mixes, ${perMix} sounds a mix at most`);
console.log("| split | speech | mixes | sounds put in | transcript count exact | speakers shown beyond the people | diarizer count exact | mean DER (activity) | mean transcript DER | words inside the sounds | talk's words given to them | turn ends on a sentence end |");
console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
for (const split of splits) {
  for (const speech of [...convos.map((s) => s.name), "all"]) {
    const rs = rows.filter((r) => r.split === split && (speech === "all" || r.speech === speech));
    if (!rs.length) continue;
    const mean = (xs: Array<number | undefined>) => {
      const known = xs.filter((x): x is number => x !== undefined);
      return known.length ? pct(known.reduce((a, b) => a + b, 0) / known.length) : "-";
    };
    console.log(
      `| ${split} | ${speech} | ${rs.length} | ${rs.reduce((s, r) => s + r.laughs, 0)} | ${rs.filter((r) => r.shown === r.people).length}/${rs.length} | ${rs.reduce((s, r) => s + Math.max(0, r.shown - r.people), 0)} | ${rs.filter((r) => r.diarized === r.people).length}/${rs.length} | ${mean(rs.map((r) => r.der))} | ${mean(rs.map((r) => r.transcriptDer))} | ${rs.reduce((s, r) => s + r.laughWords.length, 0)} | ${rs.reduce((s, r) => s + r.takenWords.length, 0)} | ${turnEnds(rs)} |`,
    );
  }
}
process.exit(0);

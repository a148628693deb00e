/**
 * Two-person compositions of the shared talking heads, for the speaker-following crop's tests and
 * benches: talking_head_a on the left speaks for `turn` seconds while talking_head_b on the right
 * listens, then the other way round, on a 1920x1080 canvas like a remote-interview layout. A still
 * listener is a frozen frame; a moving one is their own video, slowed down and muted, so
 * their lips move without their voice (as a real listener nods, laughs and mouths along).
 */
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { SHARED_MEDIA } from "./paths.ts";

export interface PairOptions {
  /** Seconds each person talks (default 5, at most 5: talking_head_b is 5.04 s long); the composition is two turns long. */
  turn?: number;
  /** Pan both shots (up to 60 px either way, about 90 px/s), so faces move between samples. */
  pan?: boolean;
  /** "still" (default): the listener is a frozen frame; "moving": their own video, slowed down and muted. */
  listener?: "still" | "moving";
  /** A moving listener's playback speed (default 0.5: half speed). */
  listenerSpeed?: number;
  crf?: number;
  /** x264 preset (default veryfast, what the benches were measured on). */
  preset?: "veryfast" | "ultrafast";
}

/** The shots' left edges on the canvas; each shot is 640x640 at y=220 with the face near its middle. */
export const PAIR_SHOTS = { left: 160, right: 1120, size: 640 } as const;

/** Horizontal pan of both shots at time t (seconds into the composition), in canvas pixels. */
export const pairPan = (t: number) => -60 * Math.sin(1.5 * t);

export async function talkingHeadsPair(out: string, o: PairOptions = {}): Promise<string> {
  const turn = o.turn ?? 5;
  const pan = o.pan ? ",pad=760:760:60:60,crop=640:640:60+60*sin(1.5*t):60+40*sin(1.1*t)" : "";
  const base = (i: number, tag: string) => `[${i}:v]fps=25,scale=640:640,setsar=1${tag}`;
  const talking = (tag: string) => `${tag}trim=0:${turn},setpts=PTS-STARTPTS`;
  // A moving listener: the start of their own video slowed down (a different stretch of lip
  // movement from the one they speak, and never in time with the other's voice).
  const speed = o.listenerSpeed ?? 0.5;
  const listening = (tag: string) => `${tag}trim=0:${turn * speed},setpts=${1 / speed}*(PTS-STARTPTS),fps=25`;
  const shot = (i: number, first: "talk" | "listen") => {
    if (o.listener !== "moving") {
      const pad = first === "talk" ? "stop" : "start";
      return `[${i}:v]trim=0:${turn},setpts=PTS-STARTPTS,fps=25,scale=640:640,setsar=1,tpad=${pad}_mode=clone:${pad}_duration=${turn}${pan}`;
    }
    const parts = first === "talk" ? [talking(`[t${i}]`), listening(`[s${i}]`)] : [listening(`[s${i}]`), talking(`[t${i}]`)];
    return `${base(i, `,split[t${i}][s${i}]`)};${parts[0]}[p${i}0];${parts[1]}[p${i}1];[p${i}0][p${i}1]concat=n=2:v=1:a=0${pan ? `,${pan.slice(1)}` : ""}`;
  };
  await ffmpeg([
    "-y", ...mediaInput(join(SHARED_MEDIA, "talking_head_a.mp4")), ...mediaInput(join(SHARED_MEDIA, "talking_head_b.mp4")),
    "-filter_complex",
    `${shot(0, "talk")}[l];${shot(1, "listen")}[r];` +
      `color=c=0x202830:s=1920x1080:r=25:d=${2 * turn}[bg];[bg][l]overlay=${PAIR_SHOTS.left}:220[bl];[bl][r]overlay=${PAIR_SHOTS.right}:220[v];` +
      `[0:a]atrim=0:${turn},asetpts=PTS-STARTPTS,aresample=48000[a0];[1:a]atrim=0:${turn},asetpts=PTS-STARTPTS,aresample=48000[a1];[a0][a1]concat=n=2:v=0:a=1[a]`,
    "-map", "[v]", "-map", "[a]", "-t", String(2 * turn), "-c:v", "libx264", "-preset", o.preset ?? "veryfast", "-crf", String(o.crf ?? 20),
    "-c:a", "aac", "-b:a", "192k", out,
  ]);
  return out;
}

/**
 * A pair (talkingHeadsPair, turns of `turn` seconds, 25 fps, 48 kHz) played over and over to `seconds`:
 * looped by the frame and by the sample and encoded again. A stream-copy loop let the video run 20 ms
 * longer than the audio per pass (AAC padding), so the voice drifted off the lips, and lip sync with it.
 */
export async function loopedPair(pair: string, out: string, seconds: number, o: { turn?: number; crf?: number; preset?: PairOptions["preset"] } = {}): Promise<string> {
  const turn = o.turn ?? 5;
  const loops = Math.ceil(seconds / (2 * turn)) - 1;
  await ffmpeg([
    "-y", ...mediaInput(pair), "-filter_complex", `[0:v]loop=loop=${loops}:size=${50 * turn}:start=0[v];[0:a]aloop=loop=${loops}:size=${96000 * turn}:start=0[a]`,
    "-map", "[v]", "-map", "[a]", "-t", String(seconds), "-c:v", "libx264", "-preset", o.preset ?? "veryfast", "-crf", String(o.crf ?? 18),
    "-c:a", "aac", "-b:a", "192k", out,
  ]);
  return out;
}

/**
 * talkingHeadsPair as the tests use it: encoded with x264's ultrafast preset (half the CPU of
 * veryfast, at the same crf; the tests read faces, mouths and frame counts, not the encoder's
 * efficiency), and made once per test run for every file that asks for the same options when
 * CLIPYARD_TEST_JOB_CACHE names the run's cache folder (scripts/test.sh; render-crop and
 * trailer-join both start from the default pair). Without it, as when a file runs alone, it is made
 * in `dir`. Parallel files may both make it: each renames its own finished file into place, and
 * the two are the same composition.
 */
export function testPair(dir: string, o: PairOptions = {}): Promise<string> {
  const options: PairOptions = { ...o, preset: "ultrafast" };
  const name = `pair-${new Bun.CryptoHasher("sha256").update(JSON.stringify(options)).digest("hex").slice(0, 16)}.mp4`;
  const cache = process.env.CLIPYARD_TEST_JOB_CACHE;
  const out = cache ? join(cache, "compositions", name) : join(dir, name);
  let made = pairs.get(out);
  if (!made) {
    made = makePair(out, options).catch((err) => {
      pairs.delete(out);
      throw err;
    });
    pairs.set(out, made);
  }
  return made;
}

/** This process's compositions, made or being made, by path: callers at the same time share one. */
const pairs = new Map<string, Promise<string>>();

async function makePair(out: string, options: PairOptions): Promise<string> {
  if (existsSync(out)) return out;
  mkdirSync(dirname(out), { recursive: true });
  const building = join(dirname(out), `.${process.pid}-${Math.random().toString(36).slice(2)}-${basename(out)}`);
  await talkingHeadsPair(building, options);
  renameSync(building, out);
  return out;
}

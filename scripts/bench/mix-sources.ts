/**
 * What the mixing benches (music.ts, laughter.ts) mix: the real conversations at hand, and sounds
 * from Debian packages fetched with `apt-get download` and unpacked on first use.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ffmpeg, mediaInput } from "../../src/media/ffmpeg.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { parseRttm, type Turn } from "./asr-scoring.ts";

export const SHARED = process.env.CLIPYARD_SHARED_MEDIA ?? join(import.meta.dir, "../../../shared/media");

export interface Conversation {
  name: string;
  path: string;
  seconds: number;
  people: number;
  /** Who spoke when (RTTM), when there is a reference. */
  reference?: Turn[];
  /** What was said (a human transcript), when there is one. */
  text?: string;
}

/**
 * The bundled two-host sample's first minute (both hosts talk in it; no reference), made in `work`, and
 * from ../shared/media the phone call (2 people, RTTM and transcript) and jfk (1, transcript) when present.
 */
export async function conversations(work: string): Promise<Conversation[]> {
  const out: Conversation[] = [];
  const sample = join(work, "sample-60s.wav");
  if (!existsSync(sample)) await ffmpeg(["-y", ...mediaInput(join(import.meta.dir, "../../fixtures/sample/rooftop-hours.m4a")), "-t", "60", "-ac", "1", "-ar", "16000", sample]);
  const seconds = async (path: string) => (await probeMedia(path, { requireAudio: true })).durationSeconds;
  out.push({ name: "sample", path: sample, seconds: await seconds(sample), people: 2 });
  for (const [name, people] of [["two_speakers_call", 2], ["jfk", 1]] as const) {
    const path = join(SHARED, `${name}.wav`);
    if (!existsSync(path)) {
      process.stderr.write(`${name}: ../shared/media not here; mixes without it\n`);
      continue;
    }
    const rttm = join(SHARED, `${name}.rttm`);
    const ref = join(SHARED, `${name}.ref.txt`);
    out.push({ name, path, seconds: await seconds(path), people, reference: existsSync(rttm) ? parseRttm(readFileSync(rttm, "utf8")) : undefined, text: existsSync(ref) ? readFileSync(ref, "utf8") : undefined });
  }
  return out;
}

/** The packages unpacked under `dir`/x, each fetched (`apt-get download`) the first time; returns that folder. */
export function debianPackages(dir: string, packages: string[]): string {
  const root = join(dir, "x");
  const missing = packages.filter((pkg) => !existsSync(join(dir, `${pkg}.unpacked`)));
  if (!missing.length) return root;
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`fetching ${missing.join(", ")} into ${dir} (apt-get download)\n`);
  execFileSync("apt-get", ["download", ...missing], { cwd: dir, stdio: "inherit" });
  for (const pkg of missing) {
    const deb = readdirSync(dir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith(".deb"));
    if (!deb) throw new Error(`apt-get download ${pkg} left no .deb in ${dir}`);
    execFileSync("dpkg-deb", ["-x", join(dir, deb), root]);
    writeFileSync(join(dir, `${pkg}.unpacked`), "");
  }
  return root;
}

/** Every file under `root` whose path `pick` accepts, sorted. */
export function filesUnder(root: string, pick: (path: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && pick(p)) out.push(p);
    }
  };
  walk(root);
  return out.sort();
}

/**
 * A French episode through `clipyard process --language fr` with the default recogniser
 * (whisper-base): the transcript says French and reads as French is written ("c'est", not "c 'est"),
 * the captions carry its words, and the notes are in French with no English template text.
 *
 * The recording is synthesised here with espeak-ng's French voices (a Debian package setup already
 * installs): no registry this project can reach carries a French Piper voice with a published
 * checksum, and espeak-ng is deterministic for a given version. Its robotic French is what makes the
 * language given rather than detected here: whisper-base hears it as Latin.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ffmpeg } from "../../src/media/ffmpeg.ts";
import { expectFrenchOutput } from "../helpers/french-output.ts";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-french-"));
const source = join(work, "jardins.wav");
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DIALOGUE: Array<[voice: string, text: string]> = [
  ["fr+m3", "Bonjour et bienvenue. Aujourd'hui, nous parlons des jardins partagés en ville."],
  ["fr+f2", "Merci de m'accueillir. C'est un sujet qui me passionne depuis dix ans."],
  ["fr+m3", "Combien de jardins partagés existent à Lyon aujourd'hui ?"],
  ["fr+f2", "Il y a plus de cent jardins partagés à Lyon. Chaque jardin nourrit environ trente familles pendant l'été."],
  ["fr+m3", "Et l'eau ? C'est le grand problème des jardins pendant les canicules."],
  ["fr+f2", "L'eau de pluie est la clé. Nous récupérons l'eau sur les toits, et les jardins n'utilisent presque plus l'eau du réseau."],
  ["fr+m3", "Quel conseil donnez-vous aux voisins qui veulent créer un jardin ?"],
  ["fr+f2", "Commencez petit. Un jardin de dix mètres carrés suffit pour apprendre, et la mairie prête souvent le terrain."],
  ["fr+m3", "Merci beaucoup, et à la semaine prochaine."],
];

beforeAll(async () => {
  const parts: string[] = [];
  for (const [i, [voice, text]] of DIALOGUE.entries()) {
    const part = join(work, `part${i}.wav`);
    const r = Bun.spawnSync(["espeak-ng", "-v", voice, "-s", "150", "-w", part, text]);
    expect(r.exitCode).toBe(0);
    parts.push(part);
  }
  // Half a second of silence between turns, as in conversation.
  const list = join(work, "list.txt");
  writeFileSync(list, parts.map((p) => `file '${p}'`).join("\n"));
  await ffmpeg(["-y", "-f", "concat", "-safe", "0", "-i", list, "-af", "apad=pad_dur=0.5", "-ar", "22050", "-ac", "1", source]);
}, 60_000);

test("clipyard process --language fr on a French recording: French transcript, French captions and French notes", async () => {
  const out = join(work, "out");
  // The default recogniser, not the tiny English one the other tests pin.
  const env = { ...process.env };
  delete env.CLIPYARD_ASR_MODEL;
  const proc = Bun.spawn(["bun", "run", join(ROOT, "src/main.ts"), "process", source, "--out", out, "--language", "fr", "--clips", "1", "--min-seconds", "8", "--max-seconds", "40"], {
    cwd: ROOT,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = await new Response(proc.stderr).text();
  expect({ code: await proc.exited, stderr }).toMatchObject({ code: 0, stderr: expect.stringMatching(/done in [\d.]+ s: 1 clips/) });

  const { text, notes } = expectFrenchOutput(out);
  // espeak-ng's French is hard to hear (whisper-base mishears many of its words), so the check is that
  // French came out, not which words: French function words (and no English ones, above).
  expect(text.toLowerCase()).toMatch(/\b(?:le|la|les|des|et|un|une|est|merci|pour)\b/);
  expect(notes).toContain("## Intervenants");
}, 900_000);

/**
 * `clipyard highlights <transcript.json> [--count N] [--min S] [--max S] [--title T] [--notes out.md] [--no-embeddings] [--threads N] [--wav audio.wav]`
 * Prints the ranked clips (and the show notes unless --notes writes them to a file) as JSON on stdout.
 * Exit 3 when no clip qualifies (the job layer's no_clips_to_render).
 */
import { writeFileSync } from "node:fs";
import { loadConfig } from "../config.ts";
import { tryLoadEmbedder } from "../inference/embedder.ts";
import { HighlightOptionsSchema, NoClipsError } from "../pipeline/highlights/select-clips.ts";
import { audioFeaturesFromWav } from "../pipeline/highlights/audio.ts";
import { planHighlights } from "../pipeline/highlights/plan.ts";
import type { Transcript } from "../pipeline/types.ts";

const VALUE_FLAGS = new Set(["--count", "--min", "--max", "--title", "--notes", "--threads", "--wav"]);

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
}

export default async function (argv: string[]): Promise<number> {
  const path = argv.find((a, i) => !a.startsWith("--") && !VALUE_FLAGS.has(argv[i - 1] ?? ""));
  if (!path) {
    process.stderr.write("usage: clipyard highlights <transcript.json> [--count N] [--min S] [--max S] [--title T] [--notes out.md] [--no-embeddings] [--threads N] [--wav audio.wav]\n");
    return 2;
  }
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const parsed = HighlightOptionsSchema.safeParse({
    clip_count: num(flag(argv, "--count")),
    min_clip_seconds: num(flag(argv, "--min")),
    max_clip_seconds: num(flag(argv, "--max")),
  });
  if (!parsed.success) {
    process.stderr.write(`clipyard highlights: ${parsed.error.issues[0]!.message}\n`);
    return 2;
  }
  const transcript = (await Bun.file(path).json()) as Transcript;
  const { embedder, reason } = argv.includes("--no-embeddings")
    ? { embedder: null, reason: "disabled with --no-embeddings" }
    : await tryLoadEmbedder(loadConfig().modelsDir, undefined, { threads: Number(flag(argv, "--threads") ?? 1) });
  try {
    const plan = await planHighlights(transcript, {
      embedder,
      embedderUnavailableReason: reason,
      count: parsed.data.clip_count,
      minSeconds: parsed.data.min_clip_seconds,
      maxSeconds: parsed.data.max_clip_seconds,
      title: flag(argv, "--title"),
      audio: flag(argv, "--wav") ? audioFeaturesFromWav(flag(argv, "--wav")!) : undefined,
      llm: loadConfig().llm,
    });
    const notesPath = flag(argv, "--notes");
    if (notesPath) writeFileSync(notesPath, plan.showNotes);
    const out = { clips: plan.clips, similarity: plan.similarity, editor: plan.editor, warnings: plan.warnings, ...(notesPath ? {} : { show_notes: plan.showNotes }) };
    process.stdout.write(JSON.stringify(out, null, 2) + "\n");
    return 0;
  } catch (e) {
    if (e instanceof NoClipsError) {
      process.stderr.write(`clipyard highlights: ${e.code}: ${e.message}\n`);
      return 3;
    }
    throw e;
  }
}

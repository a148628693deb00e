import { transcribeFile } from "../pipeline/transcribe/transcribe.ts";
import { speakersFromFlag } from "../pipeline/transcribe/cast.ts";
import { formatTranscript } from "../pipeline/transcribe/segments.ts";
import { parseVocabularyList } from "../pipeline/transcribe/vocabulary.ts";
import { JobOptionsSchema } from "../jobs/schema.ts";
import { isLanguageOption } from "../pipeline/language/languages.ts";

const USAGE = `usage: clipyard transcribe FILE [--json] [--model NAME] [--language CODE|auto] [--speakers N|"NAME, NAME"] [--no-diarize] [--vocabulary "Name, Term"]
`;

export default async function transcribe(argv: string[]): Promise<number> {
  let file: string | undefined;
  let json = false;
  const opts: Parameters<typeof transcribeFile>[1] = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--json") json = true;
    else if (a === "--model") opts.model = argv[++i];
    else if (a === "--language") opts.language = argv[++i];
    else if (a === "--speakers") {
      const speakers = speakersFromFlag(argv[++i] ?? "");
      if (typeof speakers === "string") {
        process.stderr.write(`${speakers}\n${USAGE}`);
        return 2;
      }
      opts.speakers = speakers;
    }
    else if (a === "--no-diarize") opts.diarize = false;
    else if (a === "--vocabulary") {
      // The API's own limits, so the command refuses what a job would.
      const parsed = JobOptionsSchema.safeParse({ vocabulary: parseVocabularyList(argv[++i] ?? "") });
      if (!parsed.success) {
        process.stderr.write(`--vocabulary: ${parsed.error.issues[0]!.message}\n`);
        return 2;
      }
      opts.vocabulary = parsed.data.vocabulary;
    }
    else if (a === "-h" || a === "--help") {
      process.stdout.write(USAGE);
      return 0;
    } else if (!a.startsWith("-") && !file) file = a;
    else {
      process.stderr.write(`unknown argument ${a}\n${USAGE}`);
      return 2;
    }
  }
  if (!file) {
    process.stderr.write(USAGE);
    return 2;
  }
  if (opts.language !== undefined && !isLanguageOption(opts.language)) {
    process.stderr.write(`clipyard: --language must be auto or a language code Whisper knows (ISO 639-1, e.g. en, fr, de); got '${opts.language}'\n`);
    return 2;
  }
  let shown = -1;
  const t = await transcribeFile(file, {
    ...opts,
    onProgress: (f) => {
      const pct = Math.floor(f * 10) * 10;
      if (pct > shown && process.stderr.isTTY) process.stderr.write(`\rtranscribing ${pct}%${pct === 100 ? "\n" : ""}`);
      shown = Math.max(shown, pct);
    },
  });
  if (json) {
    const out = {
      segments: t.segments.map(({ speaker, start, end, text }) => ({ speaker, start, end, text })),
      words: t.words.map(({ word, start, end, speaker, p }) => ({ word, start, end, speaker, ...(p === undefined ? {} : { probability: p }) })),
      language: t.language,
      speakerNames: t.speakerNames ?? {},
      ...(t.speakerNameEvidence ? { speaker_names: t.speakerNameEvidence } : {}),
      engine: t.engine,
      ...(t.warnings ? { warnings: t.warnings } : {}),
    };
    process.stdout.write(JSON.stringify(out, null, 2) + "\n");
  } else {
    process.stdout.write(`language: ${t.language}   engine: ${t.engine}\n${formatTranscript(t.segments, t.speakerNames)}\n`);
  }
  return 0;
}

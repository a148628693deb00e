import { describe, expect, test } from "bun:test";
import { JobOptionsSchema } from "../../../../src/jobs/schema.ts";
import { jobOptionsFromArgs } from "../../../../src/cli/job-options.ts";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { selectClips } from "../../../../src/pipeline/highlights/select-clips.ts";
import { analyzeSentence } from "../../../../src/pipeline/highlights/nlp.ts";
import { joinWords, splitSentences } from "../../../../src/pipeline/highlights/sentences.ts";
import { buildShowNotes, notesSection } from "../../../../src/pipeline/highlights/shownotes.ts";
import { chapterTitles, showName } from "../../../../src/pipeline/highlights/titles.ts";
import { isLanguageOption } from "../../../../src/pipeline/language/languages.ts";
import { notesText } from "../../../../src/pipeline/language/notes-text.ts";
import { stopWords } from "../../../../src/pipeline/language/rules.ts";
import { joinElisions } from "../../../../src/pipeline/transcribe/elisions.ts";
import { chooseAsrModel, type AsrModelProbe } from "../../../../src/pipeline/transcribe/asr-model.ts";
import { transcribeFile, TranscriptionError } from "../../../../src/pipeline/transcribe/transcribe.ts";
import { audiogramCard } from "../../../../src/pipeline/live.ts";
import type { Word } from "../../../../src/pipeline/types.ts";
import { transcriptFromTurns } from "../../../helpers/synthetic-transcript.ts";

/** Words one after another, 0.3 s each with 0.05 s between, a 0.5 s pause after terminal punctuation. */
function words(text: string, speaker = "Speaker 1"): Word[] {
  let t = 0;
  return text.split(/\s+/).map((w) => {
    const word = { word: w, start: t, end: t + 0.3, speaker };
    t += /[.?!。？！]$/.test(w) ? 0.8 : 0.35;
    return word;
  });
}

describe("the language option", () => {
  test("auto and every code Whisper knows are accepted; anything else is refused", () => {
    for (const ok of ["auto", "en", "fr", "de", "ja", "yue", "haw"]) expect(JobOptionsSchema.safeParse({ language: ok }).success).toBe(true);
    for (const bad of ["xx", "french", "FR", "fr-FR", "", 3]) expect(JobOptionsSchema.safeParse({ language: bad }).success).toBe(false);
    expect(isLanguageOption("nl")).toBe(true);
    expect(isLanguageOption("zz")).toBe(false);
  });

  test("an English-only model asked for another language refuses before decoding, naming the model to pick", async () => {
    const err = await transcribeFile("/nonexistent.wav", { model: "whisper-tiny.en", language: "fr" }).catch((e) => e);
    expect(err).toBeInstanceOf(TranscriptionError);
    expect(err.message).toBe("model whisper-tiny.en only recognises English; pick a multilingual model (e.g. whisper-base) for 'fr'");
  });

  test("--language on process and watch goes through the API's schema", () => {
    expect(jobOptionsFromArgs({ language: "fr" })).toEqual({ language: "fr" });
    expect(jobOptionsFromArgs({ language: "klingon" })).toBeTypeOf("string");
  });
});

describe("the default recogniser and CLIPYARD_ASR_MODEL=auto", () => {
  const probe = (o: Partial<AsrModelProbe> & { pulled?: string[] }): AsrModelProbe => ({
    present: (m) => (o.pulled ?? ["whisper-tiny.en", "whisper-base"]).includes(m),
    gpu: o.gpu ?? (() => false),
    cores: o.cores ?? (() => 2),
    runtimeInstalled: o.runtimeInstalled ?? (() => true),
  });

  test("unset: whisper-base; a name: that name", () => {
    expect(chooseAsrModel({}, probe({})).model).toBe("whisper-base");
    expect(chooseAsrModel({ CLIPYARD_ASR_MODEL: "whisper-tiny.en" }, probe({}))).toEqual({ model: "whisper-tiny.en", reason: "CLIPYARD_ASR_MODEL=whisper-tiny.en" });
  });

  test("auto: large-v3-turbo on a GPU when pulled, small on 8 cores when pulled, else base, and says why", () => {
    const all = ["whisper-tiny.en", "whisper-base", "whisper-small", "whisper-large-v3-turbo"];
    const gpu = chooseAsrModel({ CLIPYARD_ASR_MODEL: "auto" }, probe({ pulled: all, gpu: () => true }));
    expect(gpu.model).toBe("whisper-large-v3-turbo");
    expect(gpu.reason).toContain("a CUDA GPU");
    expect(chooseAsrModel({ CLIPYARD_ASR_MODEL: "auto" }, probe({ pulled: all, cores: () => 16 })).model).toBe("whisper-small");
    expect(chooseAsrModel({ CLIPYARD_ASR_MODEL: "auto" }, probe({ pulled: all, cores: () => 4 })).model).toBe("whisper-base");
    const notPulled = chooseAsrModel({ CLIPYARD_ASR_MODEL: "auto" }, probe({ gpu: () => true, cores: () => 16 }));
    expect(notPulled.model).toBe("whisper-base");
    expect(notPulled.reason).toContain("whisper-large-v3-turbo not pulled");
    expect(notPulled.reason).toContain("whisper-small not pulled");
    // Without the speech runtime only models whisper.cpp has a converted file for can run.
    expect(chooseAsrModel({ CLIPYARD_ASR_MODEL: "auto" }, probe({ pulled: all, cores: () => 16, runtimeInstalled: () => false })).model).toBe("whisper-base");
    expect(chooseAsrModel({ CLIPYARD_ASR_MODEL: "auto" }, probe({ pulled: ["whisper-tiny.en"] })).model).toBe("whisper-tiny.en");
  });
});

describe("sentences per language", () => {
  const texts = (ws: Word[], lang: string) => splitSentences(ws, lang).map((s) => s.text);

  test("French: an abbreviation and a lower-case continuation end nothing; a capital after a stop does", () => {
    expect(texts(words("M. Dupont est arrivé. Il pleuvait. et puis rien."), "fr")).toEqual(["M. Dupont est arrivé.", "Il pleuvait. et puis rien."]);
  });

  test("German: an ordinal before a month and z.B. end nothing", () => {
    expect(texts(words("Wir treffen uns am 3. Oktober in Berlin. Das ist z.B. ein Termin. Gut."), "de")).toEqual([
      "Wir treffen uns am 3. Oktober in Berlin.",
      "Das ist z.B. ein Termin.",
      "Gut.",
    ]);
  });

  test("Spanish: ¿…? is a sentence; Sr. is not an end", () => {
    expect(texts(words("Hola Sr. García. ¿Qué tal está? Muy bien."), "es")).toEqual(["Hola Sr. García.", "¿Qué tal está?", "Muy bien."]);
  });

  test("Italian, Portuguese and Dutch: their abbreviations", () => {
    expect(texts(words("Il dott. Rossi arriva. Bene."), "it")).toEqual(["Il dott. Rossi arriva.", "Bene."]);
    expect(texts(words("A Sra. Silva chegou. Obrigado."), "pt")).toEqual(["A Sra. Silva chegou.", "Obrigado."]);
    expect(texts(words("Dat is bijv. een fiets. Mooi."), "nl")).toEqual(["Dat is bijv. een fiets.", "Mooi."]);
  });

  test("Japanese: 。 ends a sentence with no space or capital after it, and the text is joined without spaces", () => {
    expect(texts(words("今日 は いい 天気 です。 明日 は 雨 です。"), "ja")).toEqual(["今日はいい天気です。", "明日は雨です。"]);
    expect(joinWords(["東京", "に", "行き", "ます", "。"])).toBe("東京に行きます。");
  });

  test("Hindi's danda, the Arabic question mark and the Urdu full stop end sentences", () => {
    expect(texts(words("आज मौसम अच्छा है। कल बारिश होगी।"), "hi")).toEqual(["आज मौसम अच्छा है।", "कल बारिश होगी।"]);
    expect(texts(words("كيف حالك؟ أنا بخير."), "ar")).toEqual(["كيف حالك؟", "أنا بخير."]);
    expect(texts(words("آج موسم اچھا ہے۔ کل بارش ہوگی۔"), "ur")).toEqual(["آج موسم اچھا ہے۔", "کل بارش ہوگی۔"]);
  });

  test("English keeps its own rules", () => {
    expect(texts(words("Mr. Smith arrived. It rained."), "en")).toEqual(["Mr. Smith arrived.", "It rained."]);
  });
});

describe("elisions joined as the language writes them", () => {
  const piece = (word: string, start: number, end: number) => ({ word, start, end });

  test("French and Italian: 'c' + \"'est\" and \"l'\" + 'actualité' are one word each, timed across both pieces", () => {
    const fr = joinElisions([piece("c", 0, 0.1), piece("'est", 0.1, 0.3), piece("l'", 0.4, 0.5), piece("actualité.", 0.5, 1.0)], "fr");
    expect(fr.map((w) => w.word)).toEqual(["c'est", "l'actualité."]);
    expect(fr[0]).toMatchObject({ start: 0, end: 0.3 });
    expect(joinElisions([piece("dell", 0, 0.2), piece("'anno", 0.2, 0.5)], "it").map((w) => w.word)).toEqual(["dell'anno"]);
    expect(joinWords(fr.map((w) => w.word))).toBe("c'est l'actualité.");
  });

  test("no join across a pause, in English, or for Dutch 's and 't", () => {
    expect(joinElisions([piece("c", 0, 0.1), piece("'est", 1.0, 1.2)], "fr")).toHaveLength(2);
    expect(joinElisions([piece("rock", 0, 0.2), piece("'n'", 0.2, 0.3)], "en")).toHaveLength(2);
    expect(joinElisions([piece("elke", 0, 0.2), piece("'s", 0.2, 0.3), piece("avonds", 0.3, 0.6)], "nl").map((w) => w.word)).toEqual(["elke", "'s", "avonds"]);
    expect(joinElisions([piece("zo", 0, 0.2), piece("'n", 0.2, 0.3)], "nl").map((w) => w.word)).toEqual(["zo'n"]);
  });

  test("an elided article is a stop word of its own for topics", () => {
    const tokens = analyzeSentence("C'est l'actualité de la semaine.", "fr").tokens;
    expect(tokens.find((t) => t.text === "l'")?.stop).toBe(true);
    expect(tokens.find((t) => t.text === "actualité")).toMatchObject({ stop: false, pos: "NOUN" });
    expect(stopWords("fr").has("de")).toBe(true);
    expect(stopWords("xx").size).toBe(0);
  });
});

const FRENCH = [
  { speaker: "Speaker 1", text: "Bonjour et bienvenue dans Les Matins du Jardin. Aujourd'hui nous parlons des jardins partagés en ville." },
  { speaker: "Speaker 2", text: "Merci de m'accueillir. Les jardins partagés changent la vie du quartier, parce que les voisins se rencontrent enfin." },
  { speaker: "Speaker 1", text: "Combien de jardins partagés existent aujourd'hui à Lyon ?" },
  { speaker: "Speaker 2", text: "Il y a plus de cent jardins partagés à Lyon. Chaque jardin partagé nourrit environ trente familles pendant l'été." },
  { speaker: "Speaker 1", text: "Et l'eau ? C'est le grand problème des jardins en ville pendant les canicules." },
  { speaker: "Speaker 2", text: "Oui, l'eau de pluie est la clé. Nous récupérons l'eau de pluie sur les toits, et les jardins partagés n'utilisent presque plus l'eau du réseau." },
  { speaker: "Speaker 1", text: "Quel conseil donnez-vous aux voisins qui veulent créer un jardin partagé ?" },
  { speaker: "Speaker 2", text: "Commencez petit. Un jardin partagé de dix mètres carrés suffit pour apprendre, et la mairie prête souvent le terrain gratuitement." },
  { speaker: "Speaker 1", text: "Merci beaucoup. C'était Les Matins du Jardin, à la semaine prochaine." },
];

const ENGLISH_TEMPLATE = /\b(?:In this|episode|talk about|Key takeaways|Chapters|Notable quotes|Mentioned|Speakers|of speaking time|turns?|Speaker \d|People and places|Opening|Part \d)\b/;

describe("notes in the episode's language", () => {
  test("a French episode: French headings and sentences, no English template text", () => {
    const t = transcriptFromTurns(FRENCH, { language: "fr", pace: 1.4 });
    const a = analyzeTranscript(t);
    const md = buildShowNotes(t, selectClips(t, { analysis: a, count: 2, minSeconds: 5, maxSeconds: 40 }), { analysis: a });
    expect(md).not.toMatch(ENGLISH_TEMPLATE);
    expect(md).toMatch(/^Dans cet épisode de \d+ minutes? de Les Matins du Jardin, 2 intervenants parlent de /m);
    expect(notesSection(md, "Chapitres").length).toBeGreaterThan(0);
    const speakers = notesSection(md, "Intervenants");
    expect(speakers).toHaveLength(2);
    for (const line of speakers) expect(line).toMatch(/^- Intervenant \d: \d+\s%\s?du temps de parole, \d+ prises? de parole$/);
    expect(showName(a.sentences.slice(0, 3).map((s) => s.text))).toBe("Les Matins du Jardin");
  });

  test("a language without rules (Japanese): transcript text, notes and audiogram card with no English template text", () => {
    const turns = [
      { speaker: "Speaker 1", text: "今日 は 東京 の 公園 に ついて 話し ます 。 公園 は とても 大切 です 。" },
      { speaker: "Speaker 2", text: "そう です ね 。 東京 の 公園 は 週末 に 人 が 多い です 。 私 は 毎朝 公園 を 走り ます 。" },
      { speaker: "Speaker 1", text: "公園 の 木 は 夏 に 涼しい 影 を 作り ます 。 ありがとう ござい ました 。" },
    ];
    const t = transcriptFromTurns(turns, { language: "ja", pace: 1.5 });
    const a = analyzeTranscript(t);
    expect(a.sentences[0]!.text).toBe("今日は東京の公園について話します。");
    const md = buildShowNotes(t, [], { analysis: a });
    expect(md).not.toMatch(/[A-Za-z]{2,}/);
    expect(md).toContain("## ⏱");
    expect(md).toContain("## 🎙");
    const card = audiogramCard(md, t);
    expect(card.speakers.map((s) => s.name)).toContain("🎙 1");
    expect(notesText("ja").opening({ minutes: 2, who: { named: [], others: 2, total: 2 }, topics: ["公園"] })).toBeNull();
  });

  test("chapter titles and their fallbacks are in the episode's language", () => {
    const said = ["Bon, voilà.", "Non, alors."];
    const nlps = said.map((s) => analyzeSentence(s, "fr"));
    expect(chapterTitles(said, nlps, [[0, 0], [1, 1]], {}, "fr").map((c) => c.title)).toEqual(["Ouverture", "Partie 2"]);
    expect(notesText("de").chapter(2)).toBe("Teil 3");
  });

  test("English notes are unchanged by the language layer", () => {
    expect(notesText("en").speakingTime(0.454, 3)).toBe("45% of speaking time, 3 turns");
    expect(notesText(undefined).speaker("Speaker 2")).toBe("Speaker 2");
    expect(notesText("fr").speaker("Speaker 2")).toBe("Intervenant 2");
  });
});

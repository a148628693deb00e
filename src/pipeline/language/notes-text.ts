/**
 * The fixed text of the show notes, the audiogram card and the share page, in the episode's language.
 * English, French, German, Spanish, Italian, Portuguese and Dutch have their sentences here; any other
 * language gets no template sentence at all (no English in, say, Japanese notes): neutral marks for
 * headings, and only what Intl formats in that language (lists, percentages, minutes).
 */
import { localeOf } from "./languages.ts";
import { baseLanguage, isEnglish, isRuled, type RuledLanguage } from "./rules.ts";

export interface NotesText {
  language: string;
  /** Whether the language has sentences of its own here (else headings are marks and there is no summary sentence). */
  ruled: boolean;
  headings: { takeaways: string; chapters: string; quotes: string; mentioned: string; speakers: string };
  mentioned: { people: string; organisations: string; resources: string } | null;
  noSpeech: string;
  /** Title when the episode names no topic and no show. */
  untitled: string;
  /** Fallback title of an episode on the share page and the audiogram card. */
  episode: string;
  /** "Rooftop Hours with Ana and Theo". */
  titleWith: (topic: string, names: string[]) => string;
  /** The summary's opening sentence; null for a language without sentences here. */
  opening: (o: { minutes: number; show?: string; who: Who; topics: string[] }) => string | null;
  /** "45% of speaking time, 3 turns". */
  speakingTime: (share: number, turns: number) => string;
  /** A diarization label ("Speaker 2") as the notes print it. */
  speaker: (label: string) => string;
  list: (items: string[]) => string;
  /** A chapter's title when nothing said names it (index from 0). */
  chapter: (index: number) => string;
}

/** Who speaks: named people and how many others, or only a count. */
export interface Who {
  named: string[];
  /** Speakers without a name beside the named ones (all of them when none is named). */
  others: number;
  total: number;
}

interface Words {
  headings: NotesText["headings"];
  mentioned: NonNullable<NotesText["mentioned"]>;
  noSpeech: string;
  untitled: string;
  episode: string;
  with: string;
  speaker: string;
  opening0: string;
  part: string;
  /** Count phrases: one speaker, n speakers, one other, n others. */
  count: (n: number, other: boolean) => string;
  opening: (minutes: string, show: string | undefined, who: string, many: boolean, topics: string | undefined) => string;
  speakingTime: (percent: string, turns: number) => string;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

const WORDS: Record<RuledLanguage, Words> = {
  en: {
    headings: { takeaways: "Key takeaways", chapters: "Chapters", quotes: "Notable quotes", mentioned: "Mentioned", speakers: "Speakers" },
    mentioned: { people: "People and places", organisations: "Organisations", resources: "Resources" },
    noSpeech: "This episode has no recognised speech.",
    untitled: "Episode Notes",
    episode: "Episode",
    with: "with",
    speaker: "Speaker",
    opening0: "Opening",
    part: "Part",
    count: (n, other) => (other ? (n === 1 ? "one other speaker" : `${n} other speakers`) : n === 1 ? "one speaker" : `${n} speakers`),
    opening: (m, show, who, many, topics) => `In this ${m}-minute episode${show ? ` of ${show}` : ""}, ${who} ${many ? "talk" : "talks"}${topics ? ` about ${topics}` : ""}.`,
    speakingTime: (p, turns) => `${p} of speaking time, ${turns} turn${turns === 1 ? "" : "s"}`,
  },
  fr: {
    headings: { takeaways: "Points clés", chapters: "Chapitres", quotes: "Citations", mentioned: "Mentionnés", speakers: "Intervenants" },
    mentioned: { people: "Personnes et lieux", organisations: "Organisations", resources: "Ressources" },
    noSpeech: "Aucune parole n'a été reconnue dans cet épisode.",
    untitled: "Notes de l'épisode",
    episode: "Épisode",
    with: "avec",
    speaker: "Intervenant",
    opening0: "Ouverture",
    part: "Partie",
    count: (n, other) => (other ? (n === 1 ? "un autre intervenant" : `${n} autres intervenants`) : n === 1 ? "un intervenant" : `${n} intervenants`),
    opening: (m, show, who, many, topics) => `Dans cet épisode de ${m}${show ? ` de ${show}` : ""}, ${who} ${many ? "parlent" : "parle"}${topics ? ` de ${topics}` : ""}.`,
    speakingTime: (p, turns) => `${p} du temps de parole, ${turns} ${plural(turns, "prise de parole", "prises de parole")}`,
  },
  de: {
    headings: { takeaways: "Das Wichtigste", chapters: "Kapitel", quotes: "Zitate", mentioned: "Erwähnt", speakers: "Sprecher" },
    mentioned: { people: "Personen und Orte", organisations: "Organisationen", resources: "Ressourcen" },
    noSpeech: "In dieser Folge wurde keine Sprache erkannt.",
    untitled: "Notizen zur Folge",
    episode: "Folge",
    with: "mit",
    speaker: "Sprecher",
    opening0: "Einstieg",
    part: "Teil",
    count: (n, other) => (other ? (n === 1 ? "eine weitere Person" : `${n} weitere Personen`) : n === 1 ? "eine Person" : `${n} Personen`),
    opening: (m, show, who, many, topics) => `In dieser Folge${show ? ` von ${show}` : ""} (${m}) ${many ? "sprechen" : "spricht"} ${who}${topics ? ` über ${topics}` : ""}.`,
    speakingTime: (p, turns) => `${p} der Redezeit, ${turns} ${plural(turns, "Wortbeitrag", "Wortbeiträge")}`,
  },
  es: {
    headings: { takeaways: "Puntos clave", chapters: "Capítulos", quotes: "Citas destacadas", mentioned: "Mencionados", speakers: "Participantes" },
    mentioned: { people: "Personas y lugares", organisations: "Organizaciones", resources: "Recursos" },
    noSpeech: "No se ha reconocido habla en este episodio.",
    untitled: "Notas del episodio",
    episode: "Episodio",
    with: "con",
    speaker: "Participante",
    opening0: "Apertura",
    part: "Parte",
    count: (n, other) => (other ? (n === 1 ? "otra persona" : `otras ${n} personas`) : n === 1 ? "una persona" : `${n} personas`),
    opening: (m, show, who, many, topics) => `En este episodio de ${m}${show ? ` de ${show}` : ""}, ${who} ${many ? "hablan" : "habla"}${topics ? ` de ${topics}` : ""}.`,
    speakingTime: (p, turns) => `${p} del tiempo de palabra, ${turns} ${plural(turns, "intervención", "intervenciones")}`,
  },
  it: {
    headings: { takeaways: "Punti chiave", chapters: "Capitoli", quotes: "Citazioni", mentioned: "Citati", speakers: "Partecipanti" },
    mentioned: { people: "Persone e luoghi", organisations: "Organizzazioni", resources: "Risorse" },
    noSpeech: "In questo episodio non è stato riconosciuto alcun parlato.",
    untitled: "Note dell'episodio",
    episode: "Episodio",
    with: "con",
    speaker: "Partecipante",
    opening0: "Apertura",
    part: "Parte",
    count: (n, other) => (other ? (n === 1 ? "un'altra persona" : `altre ${n} persone`) : n === 1 ? "una persona" : `${n} persone`),
    opening: (m, show, who, many, topics) => `In questo episodio di ${m}${show ? ` di ${show}` : ""}, ${who} ${many ? "parlano" : "parla"}${topics ? ` di ${topics}` : ""}.`,
    speakingTime: (p, turns) => `${p} del tempo di parola, ${turns} ${plural(turns, "intervento", "interventi")}`,
  },
  pt: {
    headings: { takeaways: "Pontos principais", chapters: "Capítulos", quotes: "Citações", mentioned: "Mencionados", speakers: "Participantes" },
    mentioned: { people: "Pessoas e lugares", organisations: "Organizações", resources: "Recursos" },
    noSpeech: "Nenhuma fala foi reconhecida neste episódio.",
    untitled: "Notas do episódio",
    episode: "Episódio",
    with: "com",
    speaker: "Participante",
    opening0: "Abertura",
    part: "Parte",
    count: (n, other) => (other ? (n === 1 ? "outra pessoa" : `outras ${n} pessoas`) : n === 1 ? "uma pessoa" : `${n} pessoas`),
    opening: (m, show, who, many, topics) => `Neste episódio de ${m}${show ? ` de ${show}` : ""}, ${who} ${many ? "falam" : "fala"}${topics ? ` sobre ${topics}` : ""}.`,
    speakingTime: (p, turns) => `${p} do tempo de fala, ${turns} ${plural(turns, "intervenção", "intervenções")}`,
  },
  nl: {
    headings: { takeaways: "Belangrijkste punten", chapters: "Hoofdstukken", quotes: "Citaten", mentioned: "Genoemd", speakers: "Sprekers" },
    mentioned: { people: "Personen en plaatsen", organisations: "Organisaties", resources: "Bronnen" },
    noSpeech: "In deze aflevering is geen spraak herkend.",
    untitled: "Aantekeningen bij de aflevering",
    episode: "Aflevering",
    with: "met",
    speaker: "Spreker",
    opening0: "Opening",
    part: "Deel",
    count: (n, other) => (other ? (n === 1 ? "nog één spreker" : `nog ${n} sprekers`) : n === 1 ? "één spreker" : `${n} sprekers`),
    opening: (m, show, who, many, topics) => `In deze aflevering${show ? ` van ${show}` : ""} (${m}) ${many ? "praten" : "praat"} ${who}${topics ? ` over ${topics}` : ""}.`,
    speakingTime: (p, turns) => `${p} van de spreektijd, ${turns} ${plural(turns, "beurt", "beurten")}`,
  },
};

/** English notes keep their own list join ("a, b and c"), which the notes have always used. */
function englishList(items: string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

const SPEAKER_LABEL = /^Speaker (\d+)$/;

export function notesText(language: string | undefined): NotesText {
  const lang = baseLanguage(language);
  const locale = localeOf(lang);
  const english = isEnglish(language);
  const list = english ? englishList : (items: string[]) => new Intl.ListFormat(locale, { type: "conjunction" }).format(items);
  const percent = (share: number) => new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 0 }).format(share);
  const w = english ? WORDS.en : isRuled(lang) ? WORDS[lang as RuledLanguage] : null;
  if (!w) {
    // No sentences for this language: marks for headings, numbers Intl writes, speakers by number.
    return {
      language: lang,
      ruled: false,
      headings: { takeaways: "★", chapters: "⏱", quotes: "❝", mentioned: "＠", speakers: "🎙" },
      mentioned: null,
      noSpeech: "…",
      untitled: "…",
      episode: "…",
      titleWith: (topic) => topic,
      opening: () => null,
      speakingTime: (share) => percent(share),
      speaker: (label) => label.replace(SPEAKER_LABEL, "🎙 $1"),
      list,
      chapter: (i) => `⏱ ${i + 1}`,
    };
  }
  const minutes = (n: number) =>
    english ? String(n) : new Intl.NumberFormat(locale, { style: "unit", unit: "minute", unitDisplay: "long" }).format(n);
  return {
    language: english ? "en" : lang,
    ruled: true,
    headings: w.headings,
    mentioned: w.mentioned,
    noSpeech: w.noSpeech,
    untitled: w.untitled,
    episode: w.episode,
    titleWith: (topic, names) => `${topic} ${w.with} ${list(names)}`,
    opening: ({ minutes: m, show, who, topics }) => {
      const people = [...who.named, ...(who.others && who.named.length ? [w.count(who.others, true)] : [])];
      const phrase = who.named.length === 0 || who.named.length > 3 ? w.count(who.total, false) : list(people);
      return w.opening(minutes(m), show, phrase, who.total > 1, topics.length ? list(topics) : undefined);
    },
    speakingTime: (share, turns) => w.speakingTime(english ? `${Math.round(share * 100)}%` : percent(share), turns),
    speaker: (label) => (english ? label : label.replace(SPEAKER_LABEL, `${w.speaker} $1`)),
    list,
    chapter: (i) => (i === 0 ? w.opening0 : `${w.part} ${i + 1}`),
  };
}

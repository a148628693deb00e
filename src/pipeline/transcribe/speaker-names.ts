/**
 * Speaker names from what people say, each with the evidence that gave it:
 * - a self-introduction ("I'm Diane", "my name is Sheila", "this is Diane in New Jersey") names the speaker;
 * - an introduction ("my guest today is Ada Lovelace", "joining me is Ada", "please welcome Ada") names
 *   the next other speaker;
 * - direct address ("Jack, what's your favourite …?", "Kyle. What do you think …?", "… do you think,
 *   Priya?", "Jack?") names the other voice that answers, only when that voice speaks next.
 * - thanks by name at the start of a turn ("Thanks, Jack.", "Thank you so much for that, Kyle.", "Thanks
 *   for having me, Ada.") names the other voice that spoke just before: the one being thanked.
 * Pure text rules over speaker-turn segments. A name goes to a voice only when its evidence agrees:
 * claims that split a name between voices, or a voice between names, leave it unnamed rather than
 * guessed, and a voice that says a name to someone else is never given it. A name merely mentioned
 * ("I talked to Jack", "Jack's best work") is no evidence.
 */
import { analyzeSentence } from "../highlights/nlp.ts";
import type { Segment } from "../types.ts";

/** Why a voice got its name, for the transcript (the API's `speaker_names`). */
export interface SpeakerName {
  speaker: string;
  name: string;
  evidence: string[];
}

export interface SpeakerNaming {
  /** Speaker label -> name. */
  names: Record<string, string>;
  evidence: SpeakerName[];
}

const NAME = "(\\p{Lu}\\p{Ll}+(?:[- ]\\p{Lu}\\p{Ll}+)?)";
const SELF = [
  new RegExp(`\\b(?:I'm|I am|I’m)\\s+${NAME}`, "gu"),
  new RegExp(`\\b[Mm]y name(?:'s| is)\\s+${NAME}`, "gu"),
  new RegExp(`\\b(?:[Tt]his|[Ii]t)\\s+is\\s+${NAME}\\s+(?:in|from|here|speaking|with|and)\\b`, "gu"),
  new RegExp(`\\b(?:[Tt]his is|[Hh]ere is)\\s+${NAME}[.,!]`, "gu"),
];
const GUEST = [
  new RegExp(`\\b(?:[Mm]y|[Oo]ur)\\s+(?:guest|guests|co-host|cohost)\\s+(?:today\\s+|this week\\s+|tonight\\s+)?(?:is|are)\\s+${NAME}`, "gu"),
  new RegExp(`\\b(?:[Pp]lease\\s+)?[Ww]elcome(?:\\s+to the show)?,?\\s+${NAME}`, "gu"),
  new RegExp(`\\b[Jj]oining (?:me|us)(?: today| tonight| now)? (?:is|are)\\s+${NAME}`, "gu"),
  new RegExp(`\\b(?:I'm|I am|I’m|[Ww]e're|[Ww]e are) joined (?:today |tonight |now )?by\\s+${NAME}`, "gu"),
  new RegExp(`\\b[Ww]ith (?:me|us) (?:today |tonight |now )?(?:is|are)\\s+${NAME}`, "gu"),
];
/** "… is Jack and Kyle", "… by Jack, Kyle and …": several people introduced at once; which voice is whose is not said. */
const MORE_PEOPLE = /^\s*(?:,|and|&)\s+\p{Lu}/u;
/** "I'm Jack's brother", "my guest is Jack Black's drummer": someone's relation, not their name. */
const POSSESSIVE = /^(?:\s+\p{Lu}\p{Ll}+)?['’]s\b/u;
/** "Jack, what's …", "Kyle. What …", "Jack?": a capitalised word (and surname) opening a sentence, then a stop. */
const ADDRESS_OPENING = /^(\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)?)\s*([,.?!])\s*(.*)$/su;
/** "… what do you think, Priya?" */
const ADDRESS_CLOSING = /,\s+(\p{Lu}\p{Ll}+)\s*\?$/u;
/** "Thanks, Jack.", "Thank you so much for that, Kyle!", "Thanks for having me, Ada.": a whole sentence of thanks closed by a name. */
const THANKS_CLOSING = /^(?:[Tt]hanks|[Tt]hank you)(?: (?:so|very) much)?(?: for [^,.?!]+)?,\s+(\p{Lu}\p{Ll}+(?: \p{Lu}\p{Ll}+)?)\s*[.!]?$/u;

/** Capitalised words that follow "I'm" or "this is", or open a sentence before a comma, without being names. */
const NOT_NAMES = new Set(
  (
    "Sorry Sure Fine Okay Ok Good Great Glad Happy Here There So Not Just Really Very Going Gonna Also Still Actually Back Done Ready Right Yeah Yes No Well Oh And But The A An It This That In On At From With Trying Talking Looking Thinking Excited Honored Thrilled Delighted Curious American English Chicago Texas Jersey New York London California Today Tomorrow Monday Tuesday Wednesday Thursday Friday Saturday Sunday Everyone Everybody " +
    "Yep Yup Nope Nah Hmm Mm Uh Um Ah Aha Wow Whoa Hey Hi Hello Bye Goodbye Thanks Thank Please Cheers Alright Anyway Anyways Look Listen See Say Wait Hold Now Then Because Like Maybe Perhaps Basically Honestly Seriously Obviously Clearly Literally Totally Absolutely Definitely Exactly Certainly Indeed Interesting Amazing Awesome Perfect Cool Nice Lovely Brilliant Excellent Fantastic Wonderful Beautiful Incredible Terrible Fair Fun Funny True Correct Agreed Understood Gotcha Man Dude Guys Folks Friends Sir Madam Mom Dad Mum God Jesus Christ Lord Yesterday Tonight Morning Evening Afternoon Night January February March April May June July August September October November December First Second Third Finally Next Last Lastly Anyhow However Meanwhile Otherwise Plus Or Nor Yet Since Unless Although Though While Whereas If When Where Why What Who Whom Whose Which How Whatever Whoever Let Come Go Tell Imagine Remember Think Guess Speaking Talk Again Sometimes Often Usually Always Never Ever Only Even Especially Anyone Someone Something Anything Nothing Everything Nobody Somebody Anybody One Two Three Four Five Ten Hundred Thousand Million Number Quick Short Long Big Small Real Fast Slow Hard Easy Total Whole Part Piece America Europe Asia Africa Australia Canada Britain England France Germany China Japan India Google Apple Facebook Twitter Microsoft Amazon"
  ).split(" "),
);

/** Transcript time as m:ss, for evidence a person can check. */
const at = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;

/** The name part of a candidate: undefined for a common word, and "Diane" from "Diane in New Jersey"-style runs. */
function nameOf(candidate: string): string | undefined {
  const parts = candidate.split(" ");
  if (NOT_NAMES.has(parts[0]!.split("-")[0]!)) return undefined;
  return parts.length > 1 && NOT_NAMES.has(parts[1]!) ? parts[0] : candidate;
}

/** Sentences of a segment's text, each with its end mark. */
function sentences(text: string): string[] {
  return (text.match(/[^.?!]+[.?!]*/g) ?? []).map((s) => s.trim()).filter(Boolean);
}

/** The tagger agrees the word is a proper noun where it stands (not "Look, …" or "Honestly, …"). */
function taggedProperNoun(sentence: string, word: string): boolean {
  return analyzeSentence(sentence).tokens.some((t) => t.text === word && t.pos === "PROPN");
}

const quote = (text: string, max = 60) => `"${text.length > max ? `${text.slice(0, max - 1).trimEnd()}…` : text}"`;

/** Seconds within which the next voice must start for it to be the answer to a question put by name. */
const ANSWER_WITHIN_SECONDS = 5;
/** A question put by name among a turn's last sentences is handed to the next voice; earlier ones are not. */
const ADDRESS_LAST_SENTENCES = 3;
/** Thanks by name among a turn's first sentences go to the voice before; later ones may thank anyone. */
const THANKS_FIRST_SENTENCES = 2;

interface Claim {
  speaker: string;
  name: string;
  weight: number;
  evidence: string;
}

/** The name said to someone in sentence i of a turn, if it is a question (or hand-over) put by name. */
function addressedName(said: string[], i: number): string | undefined {
  const s = said[i]!;
  const opening = ADDRESS_OPENING.exec(s);
  if (opening) {
    const [, candidate, stop, rest] = opening;
    const last = i === said.length - 1;
    // A question after the name (in its sentence or the next: "Kyle. What …?", "Theo, this was lovely. Where …?"), a bare "Jack?", or a turn that ends on it ("Sarah, over to you.").
    const asks = rest!.includes("?") || (stop === "?" && !rest) || (stop !== "?" && !!said[i + 1]?.endsWith("?")) || (stop === "," && last);
    const name = asks ? nameOf(candidate!) : undefined;
    if (name && taggedProperNoun(s, name.split(" ")[0]!)) return name;
  }
  const closing = ADDRESS_CLOSING.exec(s);
  if (closing) {
    const name = nameOf(closing[1]!);
    if (name && taggedProperNoun(s, name)) return name;
  }
  return undefined;
}

function claimsOf(segments: Segment[]): { claims: Claim[]; saidTo: Set<string> } {
  const claims: Claim[] = [];
  // "speaker\u0000name" for each name a voice said to or about someone else: that voice is not the name.
  const saidTo = new Set<string>();
  // Segments overlap where two people talk at once (segments.ts): one said wholly inside a turn (a
  // "yeah", an interjection) is neither the reply to that turn nor the turn before the next.
  const within = (o: Segment, s: Segment) => o.start >= s.start && o.end <= s.end && o.end - o.start < s.end - s.start;
  const nextOther = (i: number) => segments.slice(i + 1).find((s) => s.speaker !== segments[i]!.speaker && !within(s, segments[i]!));
  const replyTo = (i: number) => segments.slice(i + 1).find((s) => !within(s, segments[i]!));
  const turnBefore = (i: number) =>
    segments
      .slice(0, i)
      .filter((s) => !within(s, segments[i]!))
      .reduce<Segment | undefined>((latest, s) => (!latest || s.end > latest.end ? s : latest), undefined);
  segments.forEach((seg, i) => {
    for (const re of SELF) {
      for (const m of seg.text.matchAll(re)) {
        const name = POSSESSIVE.test(seg.text.slice(m.index! + m[0].length)) ? undefined : nameOf(m[1]!);
        if (name) claims.push({ speaker: seg.speaker, name, weight: 2, evidence: `introduced themself at ${at(seg.start)}: ${quote(m[0])}` });
      }
    }
    for (const re of GUEST) {
      for (const m of seg.text.matchAll(re)) {
        const name = nameOf(m[1]!);
        const next = nextOther(i);
        const after = seg.text.slice(m.index! + m[0].length);
        if (!name || MORE_PEOPLE.test(after) || POSSESSIVE.test(after)) continue;
        saidTo.add(`${seg.speaker}\u0000${key(name)}`);
        if (next) claims.push({ speaker: next.speaker, name, weight: 2, evidence: `introduced by ${seg.speaker} at ${at(seg.start)} (${quote(m[0])}), then the next to speak` });
      }
    }
    const said = sentences(seg.text);
    const answer = replyTo(i);
    said.forEach((_, k) => {
      const name = addressedName(said, k);
      if (!name) return;
      saidTo.add(`${seg.speaker}\u0000${key(name)}`);
      // Only the voice that answers straight away is the one asked, and only for a question at the turn's end.
      if (k < said.length - ADDRESS_LAST_SENTENCES || !answer || answer.speaker === seg.speaker || answer.start - seg.end > ANSWER_WITHIN_SECONDS) return;
      claims.push({ speaker: answer.speaker, name, weight: 1, evidence: `addressed by ${seg.speaker} at ${at(seg.start)} (${quote(said.slice(k).join(" "))}) and answered at ${at(answer.start)}` });
    });
    const before = turnBefore(i);
    said.slice(0, THANKS_FIRST_SENTENCES).forEach((sentence) => {
      const m = THANKS_CLOSING.exec(sentence);
      const name = m ? nameOf(m[1]!) : undefined;
      if (!name || !taggedProperNoun(sentence, name.split(" ")[0]!)) return;
      saidTo.add(`${seg.speaker}\u0000${key(name)}`);
      // Only the voice that has just spoken is the one thanked.
      if (!before || before.speaker === seg.speaker || seg.start - before.end > ANSWER_WITHIN_SECONDS) return;
      claims.push({ speaker: before.speaker, name, weight: 1, evidence: `thanked by ${seg.speaker} at ${at(seg.start)} (${quote(sentence)}) straight after speaking` });
    });
  });
  return { claims, saidTo };
}

/** Names compare on their first word, case aside: "Grace" and "Grace Hopper" are one person. */
const key = (name: string) => name.split(/[ -]/)[0]!.toLowerCase();

/** Share of a name's (or a voice's) claims that must agree on one voice (one name) for it to be given. */
const AGREEMENT = 2 / 3;

/**
 * Names from the conversation, and from `cast` (the job's `speakers` names) when given: a cast name the
 * conversation gives a voice goes there; the rest go to the unnamed voices in order of first speech.
 * Conversation names outside a given cast are not used.
 */
export function nameSpeakers(segments: Segment[], opts: { cast?: string[] } = {}): SpeakerNaming {
  const { claims, saidTo } = claimsOf(segments);
  const castByKey = new Map((opts.cast ?? []).map((n) => [key(n), n]));
  const usable = claims.filter((c) => !saidTo.has(`${c.speaker}\u0000${key(c.name)}`) && (!opts.cast || castByKey.has(key(c.name))));
  const weight = new Map<string, number>();
  const byName = new Map<string, number>();
  const bySpeaker = new Map<string, number>();
  const add = (m: Map<string, number>, k: string, w: number) => m.set(k, (m.get(k) ?? 0) + w);
  for (const c of usable) {
    add(weight, `${c.speaker}\u0000${key(c.name)}`, c.weight);
    add(byName, key(c.name), c.weight);
    add(bySpeaker, c.speaker, c.weight);
  }
  const ranked = [...weight].sort((a, b) => b[1] - a[1]);
  const names: Record<string, string> = {};
  const evidence: SpeakerName[] = [];
  const taken = new Set<string>();
  for (const [pair, w] of ranked) {
    const [speaker, k] = pair.split("\u0000") as [string, string];
    if (names[speaker] || taken.has(k)) continue;
    if (w < AGREEMENT * byName.get(k)! || w < AGREEMENT * bySpeaker.get(speaker)!) continue;
    const own = usable.filter((c) => c.speaker === speaker && key(c.name) === k);
    // The fullest form heard ("Grace Hopper" over "Grace"), or the cast's own spelling.
    const name = castByKey.get(k) ?? own.map((c) => c.name).sort((a, b) => b.length - a.length)[0]!;
    names[speaker] = name;
    taken.add(k);
    evidence.push({ speaker, name, evidence: own.map((c) => c.evidence) });
  }
  if (opts.cast) {
    const voices = [...new Set(segments.map((s) => s.speaker))];
    const left = opts.cast.filter((n) => !taken.has(key(n)));
    for (const speaker of voices) {
      if (names[speaker] || !left.length) continue;
      const name = left.shift()!;
      names[speaker] = name;
      evidence.push({ speaker, name, evidence: [`named in the job's speakers option; given in the option's order to the voices not named by the conversation, in order of first speech`] });
    }
  }
  evidence.sort((a, b) => a.speaker.localeCompare(b.speaker, undefined, { numeric: true }));
  return { names, evidence };
}

export function detectSpeakerNames(segments: Segment[]): Record<string, string> {
  return nameSpeakers(segments).names;
}

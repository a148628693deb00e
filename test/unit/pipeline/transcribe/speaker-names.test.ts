import { expect, test } from "bun:test";
import { detectSpeakerNames, nameSpeakers } from "../../../../src/pipeline/transcribe/speaker-names.ts";

/** Turns one after another, a second apart, so each answer follows its question straight away. */
function turns(...said: Array<[string, string]>) {
  return said.map(([speaker, text], i) => ({ speaker, start: i * 5, end: i * 5 + 4, text }));
}

test("direct address names the voice that answers: 'Jack, what's …?' and 'Kyle. What …?'", () => {
  const r = nameSpeakers(
    turns(
      ["Speaker 1", "Welcome to the show. Jack, what's your favorite movie of the year?"],
      ["Speaker 2", "Oh, that is easy, the one about the submarine."],
      ["Speaker 1", "Kyle. What do you think is Jack's best work?"],
      ["Speaker 3", "Honestly the early stuff, before he got famous."],
    ),
  );
  expect(r.names).toEqual({ "Speaker 2": "Jack", "Speaker 3": "Kyle" });
  const jack = r.evidence.find((e) => e.name === "Jack")!;
  expect(jack.speaker).toBe("Speaker 2");
  expect(jack.evidence[0]).toContain("addressed by Speaker 1");
  expect(jack.evidence[0]).toContain("Jack, what's your favorite");
});

test("a name at the end of a question and a bare 'Name?' are address too", () => {
  expect(nameSpeakers(turns(["Speaker 1", "So what do you think, Priya?"], ["Speaker 2", "I think it is fine."])).names).toEqual({ "Speaker 2": "Priya" });
  expect(nameSpeakers(turns(["Speaker 1", "Marcus?"], ["Speaker 2", "Yes, I'm here."])).names).toEqual({ "Speaker 2": "Marcus" });
});

test("names with accented letters: 'José, …?', 'I'm Zoë'", () => {
  expect(nameSpeakers(turns(["Speaker 1", "I'm Zoë, welcome. José, what brought you here?"], ["Speaker 2", "A long train ride."])).names).toEqual({ "Speaker 1": "Zoë", "Speaker 2": "José" });
});

test("introductions name the next other voice: 'joining me is', 'my guest today is'", () => {
  const r = nameSpeakers(turns(["Speaker 1", "Joining me is Ada Lovelace, who wrote the first program."], ["Speaker 2", "Thanks for having me."]));
  expect(r.names).toEqual({ "Speaker 2": "Ada Lovelace" });
  expect(r.evidence[0]!.evidence[0]).toContain("introduced by Speaker 1");
});

test("'I'm joined by …' names the next voice; several people introduced at once name nobody", () => {
  expect(nameSpeakers(turns(["Speaker 1", "Welcome. I'm joined today by Priya Patel."], ["Speaker 2", "Happy to be here."])).names).toEqual({ "Speaker 2": "Priya Patel" });
  expect(nameSpeakers(turns(["Speaker 1", "I'm joined by Jack and Kyle from the band."], ["Speaker 2", "Hey."], ["Speaker 3", "Hi."])).names).toEqual({});
  expect(nameSpeakers(turns(["Speaker 1", "My guests today are Jack, Kyle and Sam."], ["Speaker 2", "Hello."])).names).toEqual({});
});

test("a name mentioned in passing names nobody", () => {
  const r = nameSpeakers(
    turns(
      ["Speaker 1", "I talked to Jack yesterday about the budget. Jack's numbers were off."],
      ["Speaker 2", "Did Kyle see them? Jack said he would send them."],
      ["Speaker 1", "Maybe. I read what Steve Jobs said about that."],
      ["Speaker 2", "Right."],
    ),
  );
  expect(r.names).toEqual({});
  expect(r.evidence).toEqual([]);
  // Someone's relation is not a self-introduction, nor an introduction of them.
  expect(nameSpeakers(turns(["Speaker 1", "I'm Jack's brother, actually."], ["Speaker 2", "My guest today is Jack Black's drummer."], ["Speaker 1", "Hi."])).names).toEqual({});
});

test("sentence openers before a comma are not names: 'Honestly, what …?', 'Great, how …?'", () => {
  for (const opener of ["Honestly", "Great", "Look", "Basically", "Amazing", "Okay", "Anyway"]) {
    expect(nameSpeakers(turns(["Speaker 1", `${opener}, what do you make of it?`], ["Speaker 2", "Not much."])).names).toEqual({});
  }
});

test("an address nobody else answers, or answered only after a long pause, names nobody", () => {
  // The same voice carries on: no answer from anyone else.
  expect(nameSpeakers(turns(["Speaker 1", "Jack, what do you think?"], ["Speaker 1", "Well, I will answer it myself."])).names).toEqual({});
  const late = [
    { speaker: "Speaker 1", start: 0, end: 3, text: "Jack, are you there?" },
    { speaker: "Speaker 2", start: 20, end: 22, text: "Sorry, I was on mute." },
  ];
  expect(nameSpeakers(late).names).toEqual({});
  // Asked early in a long turn: whoever speaks next answered the end of the turn, not the question.
  expect(
    nameSpeakers(turns(["Speaker 1", "Jack, what do you think? Never mind. Let me start. The plan is simple. We ship on Friday. Then we rest."], ["Speaker 2", "Sounds good."])).names,
  ).toEqual({});
});

test("evidence that disagrees leaves a name unassigned rather than guessed", () => {
  // "Jack" is answered by two different voices once each: no voice holds two thirds of it.
  const r = nameSpeakers(
    turns(
      ["Speaker 1", "Jack, what's your take?"],
      ["Speaker 2", "I like it."],
      ["Speaker 1", "Jack, and the other one?"],
      ["Speaker 3", "Less so."],
    ),
  );
  expect(r.names).toEqual({});
  // A voice that says a name to someone is never given that name.
  expect(nameSpeakers(turns(["Speaker 1", "Jack, ready?"], ["Speaker 2", "Yes. Jack, what about you?"], ["Speaker 1", "Me too."])).names).toEqual({});
});

test("agreeing evidence: a self-introduction and an address of the same voice", () => {
  const r = nameSpeakers(
    turns(
      ["Speaker 2", "Hi, I'm Theo Marsh, and I keep bees."],
      ["Speaker 1", "Theo, how many bees?"],
      ["Speaker 2", "About sixty thousand."],
    ),
  );
  expect(r.names).toEqual({ "Speaker 2": "Theo Marsh" });
  expect(r.evidence[0]!.evidence).toHaveLength(2);
});

test("a cast names voices the conversation names first, the rest in order of first speech", () => {
  const segs = turns(
    ["Speaker 1", "Welcome back everybody."],
    ["Speaker 2", "Good to be here."],
    ["Speaker 1", "Kyle, what did you think of the finale?"],
    ["Speaker 3", "I loved it."],
  );
  const r = nameSpeakers(segs, { cast: ["Ann Lee", "Kyle Smith", "Bob"] });
  expect(r.names).toEqual({ "Speaker 3": "Kyle Smith", "Speaker 1": "Ann Lee", "Speaker 2": "Bob" });
  expect(r.evidence.find((e) => e.speaker === "Speaker 2")!.evidence[0]).toContain("speakers option");
  // Without conversation evidence, strictly in order of first speech.
  expect(nameSpeakers(turns(["Speaker 2", "Hello."], ["Speaker 1", "Hi."]), { cast: ["Ann", "Bob"] }).names).toEqual({ "Speaker 2": "Ann", "Speaker 1": "Bob" });
  // A name the conversation gives that is not in the cast is not used.
  expect(nameSpeakers(turns(["Speaker 1", "Jack, ready?"], ["Speaker 2", "Yes."]), { cast: ["Ann", "Bob"] }).names).toEqual({ "Speaker 1": "Ann", "Speaker 2": "Bob" });
});

test("the names and their evidence reach the job's output: transcript segments, speaker_names, audiogram cards", async () => {
  const { buildOutput, audiogramCard } = await import("../../../../src/pipeline/live.ts");
  const { presentJob } = await import("../../../../src/jobs/present.ts");
  const { JobOutputSchema } = await import("../../../../src/jobs/schema.ts");
  const segments = turns(["Speaker 1", "Jack, what's your favorite movie?"], ["Speaker 2", "The one about the submarine."]);
  const naming = nameSpeakers(segments);
  const transcript = { language: "en", segments, words: [], speakerNames: naming.names, speakerNameEvidence: naming.evidence };
  const row = { id: "job_abc", status: "complete", sourceType: "video_url", sourceUrl: "https://x.example/a.mp4", options: "{}", createdAt: 0, completedAt: 1000, errorCode: null, errorMessage: null, env: "live" } as never;
  const stored = buildOutput({ transcript, plan: { clips: [], showNotes: "# Ep\n", similarity: "", warnings: [] }, rendered: [], warnings: [], engine: {} }, row);
  const job = presentJob({ ...(row as object), output: JSON.stringify(stored) } as never, { publicUrl: "http://h", shareSecret: "s" });
  expect(job.output!.transcript.map((s) => s.speaker)).toEqual(["Speaker 1", "Jack"]);
  expect(job.output!.speaker_names).toEqual([{ speaker: "Speaker 2", name: "Jack", evidence: [expect.stringContaining("addressed by Speaker 1")] }]);
  expect(JobOutputSchema.safeParse(job.output).success).toBe(true);
  expect(audiogramCard("# Ep\n", transcript).speakers.map((s) => s.name)).toEqual(["Speaker 1", "Jack"]);
});

const seg = (speaker: string, text: string, start = 0) => ({ speaker, start, end: start + 1, text });

test("self introductions name the speaker", () => {
  expect(
    detectSpeakerNames([
      seg("Speaker 1", "Okay, then I thought, you know, I heard a beep. This is Diane in New Jersey."),
      seg("Speaker 2", "And I'm Sheila in Texas, originally from Chicago."),
      seg("Speaker 1", "Oh, I'm originally from Chicago also."),
    ]),
  ).toEqual({ "Speaker 1": "Diane", "Speaker 2": "Sheila" });
  expect(detectSpeakerNames([seg("Speaker 3", "Hi everyone, my name is Ada Lovelace and I build engines.")])).toEqual({ "Speaker 3": "Ada Lovelace" });
});

test("an introduced guest is the next other speaker", () => {
  expect(
    detectSpeakerNames([
      seg("Speaker 1", "Welcome back. My guest today is Grace Hopper."),
      seg("Speaker 1", "She wrote the first compiler."),
      seg("Speaker 2", "Thanks for having me."),
    ]),
  ).toEqual({ "Speaker 2": "Grace Hopper" });
});

test("common words after I'm are not names", () => {
  expect(detectSpeakerNames([seg("Speaker 1", "I'm Sure it works. I'm Okay with that. This is Great.")])).toEqual({});
  expect(detectSpeakerNames([seg("Speaker 1", "i'm fine, this is lowercase bob in town")])).toEqual({});
});

test("thanks by name at the start of a turn name the voice that has just spoken", () => {
  const r = nameSpeakers(
    turns(
      ["Speaker 1", "What got you into music in the first place?"],
      ["Speaker 2", "My dad played drums in a covers band, so it was always around."],
      ["Speaker 1", "Thanks, Jack. And what about you?"],
      ["Speaker 3", "Thank you so much for having me, Maria. For me it was the radio."],
    ),
  );
  expect(r.names).toEqual({ "Speaker 2": "Jack", "Speaker 1": "Maria" });
  expect(r.evidence.find((e) => e.name === "Jack")!.evidence[0]).toContain("thanked by Speaker 1");
  // "Thank you, Kyle." agreeing with an address of the same voice.
  const both = nameSpeakers(turns(["Speaker 1", "Kyle, what do you think?"], ["Speaker 2", "It is good."], ["Speaker 1", "Thank you, Kyle."]));
  expect(both.names).toEqual({ "Speaker 2": "Kyle" });
  expect(both.evidence[0]!.evidence).toHaveLength(2);
});

test("thanks that name nobody: not at the turn's start, no one just spoke, not a name, or the thanks go on", () => {
  // Late in a turn: whoever is thanked may not be the voice before.
  expect(nameSpeakers(turns(["Speaker 1", "It was fun."], ["Speaker 2", "Right. So that was the week. Anyway we move on. Thanks, Jack."])).names).toEqual({});
  // The voice before spoke long ago.
  const late = [
    { speaker: "Speaker 1", start: 0, end: 4, text: "It was a long day." },
    { speaker: "Speaker 2", start: 30, end: 34, text: "Thanks, Jack." },
  ];
  expect(nameSpeakers(late).names).toEqual({});
  // Thanking a group, or the same voice as before.
  expect(nameSpeakers(turns(["Speaker 1", "That's all."], ["Speaker 2", "Thanks, everyone."])).names).toEqual({});
  expect(nameSpeakers(turns(["Speaker 1", "That's all."], ["Speaker 2", "Thanks, guys."])).names).toEqual({});
  // Thanks for something of a person's, not to them.
  expect(nameSpeakers(turns(["Speaker 1", "Here it is."], ["Speaker 2", "Thanks for the note from Jack."])).names).toEqual({});
  // A voice that thanks Jack is not Jack, even when someone else calls it Jack.
  expect(nameSpeakers(turns(["Speaker 1", "We spoke."], ["Speaker 2", "Thanks, Jack. Jack, what else?"], ["Speaker 2", "Nothing."])).names["Speaker 2"]).toBeUndefined();
});

test("a 'yeah' said inside a turn is neither the answer to its question nor the voice its thanks are for", () => {
  // Segments overlap where two talk at once: Speaker 3's "Yeah." lies inside each of the others' turns.
  const segments = [
    { speaker: "Speaker 1", start: 0, end: 6, text: "We tried it last spring. Jack, what did you make of it?" },
    { speaker: "Speaker 3", start: 2, end: 2.6, text: "Yeah." },
    { speaker: "Speaker 2", start: 6.2, end: 12, text: "It was slower than I hoped, but it worked in the end." },
    { speaker: "Speaker 3", start: 9, end: 9.5, text: "Right." },
    { speaker: "Speaker 1", start: 12.3, end: 15, text: "Thanks, Jack. That helps." },
  ];
  const r = nameSpeakers(segments);
  expect(r.names).toEqual({ "Speaker 2": "Jack" });
  expect(r.evidence[0]!.evidence).toHaveLength(2);
});

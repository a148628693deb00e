import { expect, test } from "bun:test";
import { correctNearMisses, isNearMiss } from "../../../../src/pipeline/transcribe/near-miss.ts";

const words = (text: string) => text.split(" ").map((word, i) => ({ word, start: i, end: i + 0.5, p: 0.9 - i / 100 }));
const corrected = (text: string, vocabulary: string[]) => correctNearMisses(words(text), vocabulary).words.map((w) => w.word).join(" ");

test("a near miss of a listed name takes the listed spelling", () => {
  expect(corrected("I met Kyle Gas yesterday.", ["Kyle Gass"])).toBe("I met Kyle Gass yesterday.");
  expect(corrected("Welcome back to Roofop Hours, the show", ["Rooftop Hours"])).toBe("Welcome back to Rooftop Hours, the show");
  // Punctuation and a possessive stay where the recogniser put them.
  expect(corrected("that was (Kyle Gas's) idea", ["Kyle Gass"])).toBe("that was (Kyle Gass's) idea");
  // A one-word name, capitalised mid-sentence: the recogniser heard a name.
  expect(corrected("we asked Jumangi about it", ["Jumanji"])).toBe("we asked Jumanji about it");
});

test("a name heard as one word more keeps its words' times and lowest confidence", () => {
  const out = correctNearMisses(words("on Roof top Hours today"), ["Rooftop Hours"]);
  expect(out.words.map((w) => w.word)).toEqual(["on", "Rooftop", "Hours", "today"]);
  expect(out.words[1]).toMatchObject({ start: 1, end: 2.5, p: 0.88 });
  expect(out.corrections).toEqual([{ from: "Roof top Hours", to: "Rooftop Hours", start: 1 }]);
});

test("unrelated words are never changed", () => {
  // Lower-case words that look like a one-word name are ordinary words.
  expect(corrected("Gas prices went up and gas is dear", ["Gass"])).toBe("Gas prices went up and gas is dear");
  // Sound and spelling must both agree, from the same first letter.
  expect(corrected("then Kyle has left", ["Kyle Gass"])).toBe("then Kyle has left");
  expect(corrected("with Nora Vans and Gus", ["Nora Vance", "Gass"])).toBe("with Nora Vans and Gus");
  // One word right is not enough: the other must be a near miss of its partner.
  expect(corrected("the rooftop bar is open", ["Rooftop Hours"])).toBe("the rooftop bar is open");
  expect(corrected("the hours were long", ["Rooftop Hours"])).toBe("the hours were long");
  // Too far apart in spelling to be the same name (whisper-base hears this one right).
  expect(corrected("Josh Hami said", ["Josh Homme"])).toBe("Josh Hami said");
  // Short entries are matched exactly only: "Bo" never becomes "Bob".
  expect(corrected("and Bo said", ["Bob"])).toBe("and Bo said");
  // Words spelled as listed stay as they are, case included.
  expect(corrected("rooftop hours", ["Rooftop Hours"])).toBe("rooftop hours");
  expect(correctNearMisses(words("Rooftop Hours"), ["Rooftop Hours"]).corrections).toEqual([]);
  // A capitalised word that starts a sentence is not evidence of a name.
  expect(corrected("It was fine. Jumangi is a film", ["Jumanji"])).toBe("It was fine. Jumangi is a film");
  // Words on either side of punctuation are not one name.
  expect(corrected("up on the roof top. Hours later", ["Rooftop Hours"])).toBe("up on the roof top. Hours later");
  expect(corrected("thanks Kyle. Gas prices rose", ["Kyle Gass"])).toBe("thanks Kyle. Gas prices rose");
  // No vocabulary, no change.
  expect(corrected("Kyle Gas", [])).toBe("Kyle Gas");
});

test("a near miss needs the same first letter, close letters and close sounds", () => {
  expect(isNearMiss("Gas", "Gass")).toBe(true);
  expect(isNearMiss("Roofop", "Rooftop")).toBe(true);
  expect(isNearMiss("has", "Gass")).toBe(false); // another first letter
  expect(isNearMiss("Vans", "Vance")).toBe(false); // two edits in five letters
  expect(isNearMiss("Gass", "Gass")).toBe(false); // the same word is no miss
  expect(isNearMiss("Rooster", "Rooftop")).toBe(false);
});

import { describe, expect, test } from "bun:test";
import { assTime, buildAss, captionMargins, CAPTION_STYLES, chunkWords } from "../../../../src/pipeline/render/captions.ts";
import type { Word } from "../../../../src/pipeline/types.ts";

/** Words of a sentence laid end to end, 0.3 s each, starting at t0. */
function sentence(text: string, t0: number, speaker = "Speaker 1"): Word[] {
  return text.split(" ").map((word, i) => ({ word, start: t0 + i * 0.3, end: t0 + i * 0.3 + 0.25, speaker }));
}

describe("chunkWords", () => {
  test("chunks hold 2-4 words and keep word order", () => {
    const words = sentence("one two three four five six seven eight nine ten eleven", 0);
    const chunks = chunkWords(words);
    expect(chunks.flatMap((c) => c.words)).toEqual(words);
    for (const c of chunks) {
      expect(c.words.length).toBeGreaterThanOrEqual(2);
      expect(c.words.length).toBeLessThanOrEqual(4);
    }
  });

  test("never joins across a sentence end, a speaker change or a long pause", () => {
    const words = [
      ...sentence("We keep bees.", 0),
      ...sentence("Really? On a roof", 1.0, "Speaker 2"),
      ...sentence("above the bus stop", 5.0, "Speaker 2"),
    ];
    const texts = chunkWords(words).map((c) => c.words.map((w) => w.word).join(" "));
    expect(texts).toContain("We keep bees.");
    expect(texts.some((t) => t.includes("bees.") && t.includes("Really?"))).toBe(false);
    expect(texts.some((t) => t.includes("roof") && t.includes("above"))).toBe(false);
  });

  test("long words end a chunk early so it fits the frame", () => {
    const words = sentence("extraordinarily unpredictable neighbourhood beekeeping", 0);
    const chunks = chunkWords(words, { maxChars: 22 });
    expect(chunks.length).toBeGreaterThan(1);
  });

  test("a chunk stays up through a short gap but not over the next chunk", () => {
    const words = sentence("one two three four five six", 0);
    const chunks = chunkWords(words);
    for (let i = 0; i + 1 < chunks.length; i++) expect(chunks[i]!.end).toBeLessThanOrEqual(chunks[i + 1]!.start);
  });
});

describe("buildAss", () => {
  const frame = { width: 1080, height: 1920 };
  const words = sentence("Honey turns out to be the best tool.", 10);

  test("one event per word, each highlighting exactly the word being spoken", () => {
    const ass = buildAss(words, { frame, style: "bold", offset: 10, duration: 5 });
    const events = ass.split("\n").filter((l) => l.startsWith("Dialogue:"));
    expect(events).toHaveLength(words.length);
    events.forEach((e, i) => {
      const lit = [...e.matchAll(/\{\\c&H[0-9A-F]{8}[^}]*\}([^{]+)\{\\r\}/g)].map((m) => m[1]);
      expect(lit).toEqual([words[i]!.word.toUpperCase()]);
    });
    // Times are relative to the clip start.
    expect(events[0]).toContain("Dialogue: 0,0:00:00.00,0:00:00.30,");
  });

  test("whisper's sub-word pieces are shown joined, each still highlighted in time", () => {
    const ws = sentence("I kept 3B -hives with 60 ,000 bees.", 0);
    const ass = buildAss(ws, { frame, style: "minimal", offset: 0, duration: 5 });
    const text = (e: string) => e.split(",,0,0,0,,")[1]!.replace(/\{[^}]*\}/g, "");
    const events = ass.split("\n").filter((l) => l.startsWith("Dialogue:"));
    expect(events).toHaveLength(ws.length);
    expect(events.map(text).join(" | ")).toContain("3B-hives");
    expect(events.map(text).join(" | ")).toContain("60,000");
    expect(events.map(text).join(" | ")).not.toMatch(/ -hives| ,000/);
  });

  test("karaoke keeps spoken words lit", () => {
    const ass = buildAss(words.slice(0, 3), { frame, style: "karaoke", offset: 10 });
    const last = ass.split("\n").filter((l) => l.startsWith("Dialogue:")).pop()!;
    expect(last.match(/\{\\c&H/g)?.length).toBe(3);
  });

  test("only words inside the clip window appear, clipped to it", () => {
    const ass = buildAss(words, { frame, offset: 10.9, duration: 0.9 });
    const events = ass.split("\n").filter((l) => l.startsWith("Dialogue:"));
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) {
      const [, start, end] = e.split(",");
      expect(start! >= "0:00:00.00").toBe(true);
      expect(end! <= "0:00:00.90").toBe(true);
    }
    expect(ass).not.toContain("Honey");
  });

  test("markup characters in words are not passed to libass", () => {
    const ass = buildAss([{ word: "{\\b1}hi}", start: 0, end: 0.5, speaker: "A" }, { word: "there", start: 0.5, end: 1, speaker: "A" }], { frame, style: "minimal" });
    const e = ass.split("\n").find((l) => l.startsWith("Dialogue:"))!;
    expect(e).not.toContain("\\b1");
    expect(e).toContain("b1hi");
  });

  test("every style renders a script sized to the frame, margins inside the safe area", () => {
    for (const style of CAPTION_STYLES) {
      for (const f of [frame, { width: 1920, height: 1080 }]) {
        const ass = buildAss(words, { frame: f, style });
        expect(ass).toContain(`PlayResX: ${f.width}`);
        expect(ass).toContain(`PlayResY: ${f.height}`);
        const m = captionMargins(f);
        expect(m.left + m.right).toBeLessThan(f.width * 0.3);
        expect(m.bottom).toBeGreaterThan(f.height * 0.05);
      }
    }
    expect(captionMargins(frame).bottom).toBeGreaterThanOrEqual(1920 * 0.2);
  });

  test("assTime formats centiseconds", () => {
    expect(assTime(3723.456)).toBe("1:02:03.46");
    expect(assTime(-1)).toBe("0:00:00.00");
  });
});

test("a word without duration at a clip's first instant is the clip's first caption word", async () => {
  const { wordsInWindow } = await import("../../../../src/pipeline/render/captions.ts");
  const w = (word: string, start: number, end: number) => ({ word, start, end, speaker: "Speaker 1" });
  const words = [w("though.", 21.268, 21.688), w("Well,", 22.428, 22.428), w("there", 22.708, 22.708), w("later", 40, 40.5)];
  expect(wordsInWindow(words, 22.428, 10).map((x) => x.word)).toEqual(["Well,", "there"]);
  // One that ends exactly where the clip starts, having started before, is the previous clip's.
  expect(wordsInWindow([w("before", 21, 22.428), ...words.slice(1)], 22.428, 10).map((x) => x.word)).toEqual(["Well,", "there"]);
  // And one at the window's end is not in it.
  expect(wordsInWindow(words, 12.428, 10).map((x) => x.word)).toEqual(["though."]);
});

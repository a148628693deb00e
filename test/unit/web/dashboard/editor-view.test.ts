import { expect, test } from "bun:test";
import { sentenceEdges, snapToSentenceEdges } from "../../../../src/pipeline/highlights/clip-bounds.ts";
import type { Word } from "../../../../src/pipeline/types.ts";
import { coverPreview, edgeMoves, sentenceHtml, sentenceWindow } from "../../../../src/web/dashboard/editor-view.ts";
import type { Clip } from "../../../../src/jobs/schema.ts";
import { asrTranscript } from "../../../helpers/asr-fixture.ts";

/**
 * The dashboard editor's arithmetic on a real recogniser transcript (two_speakers_call): the
 * one-sentence moves of a clip's edges are bounds the API keeps as they are, a line's correction
 * window holds that sentence's words and no neighbour's, and a sentence's markup is escaped with
 * its doubtful words marked.
 */
const words = asrTranscript("two_speakers_call").words;
const e = sentenceEdges(words);

test("every edge move is a sentence edge the API's snapping keeps, one sentence away", () => {
  let moves = 0;
  for (const start of e.starts) {
    for (const end of e.ends.filter((x) => x > start)) {
      for (const to of Object.values(edgeMoves(e, { start, end }))) {
        if (!to) continue;
        moves++;
        expect(snapToSentenceEdges(words, to[0], to[1])).toMatchObject({ start: to[0], end: to[1] });
        // Exactly one edge moved, to the neighbouring edge in its list.
        const [list, from, next] = to[0] !== start ? [e.starts, start, to[0]] : [e.ends, end, to[1]];
        expect(Math.abs(list.indexOf(next) - list.indexOf(from))).toBe(1);
      }
    }
  }
  expect(moves).toBeGreaterThan(20);
  // The first clip-able start cannot start earlier; the last end cannot end later.
  const m = edgeMoves(e, { start: e.starts[0]!, end: e.ends.at(-1)! });
  expect(m.extendStart).toBeUndefined();
  expect(m.extendEnd).toBeUndefined();
});

test("a line's correction window holds exactly that sentence's words", () => {
  const mid = (w: Word) => (w.start + w.end) / 2;
  for (const s of e.sentences) {
    const win = sentenceWindow(words, s);
    expect(win.end_time).toBeGreaterThan(win.start_time);
    const inside = words.map((w, i) => [i, mid(w) >= win.start_time && mid(w) <= win.end_time] as const).filter(([, k]) => k).map(([i]) => i);
    expect(inside).toEqual(Array.from({ length: s.lastWord - s.firstWord + 1 }, (_, k) => s.firstWord + k));
  }
});

test("a sentence's markup escapes its text and marks the words under 0.5", () => {
  const ws: Word[] = [
    { word: "<b>Sheila</b>", start: 0, end: 0.4, speaker: "A", p: 0.31 },
    { word: "isn't", start: 0.4, end: 0.8, speaker: "A", p: 0.9 },
    { word: "here", start: 0.8, end: 1, speaker: "A" },
    { word: ".", start: 1, end: 1, speaker: "A", p: 0.2 },
  ];
  const html = sentenceHtml(ws, { index: 0, firstWord: 0, lastWord: 3, start: 0, end: 1, speaker: "A", text: "", boundary: "end", complete: true });
  expect(html).toBe(
    `<mark class="unsure" data-p="0.31" title="The recogniser was unsure of this word (probability 0.31)">&lt;b&gt;Sheila&lt;/b&gt;</mark> isn&#39;t here<mark class="unsure" data-p="0.20" title="The recogniser was unsure of this word (probability 0.20)">.</mark>`,
  );
});

test("the brand preview shows each format's cover by path on this origin, escaped, and nothing when a clip has none", () => {
  const clip = { rank: 2, thumbnail_urls: { linkedin: "https://clips.example.org/share/tok/files/clip2_linkedin.jpg", x: 'https://clips.example.org/share/tok/files/clip2_x.jpg?a="b"' } } as unknown as Clip;
  const html = coverPreview(clip);
  expect(html.match(/<img /g)?.length).toBe(2);
  expect(html).toContain('src="/share/tok/files/clip2_linkedin.jpg"');
  expect(html).not.toContain("clips.example.org");
  expect(html).not.toContain('"b"');
  expect(coverPreview({ rank: 1 } as unknown as Clip)).toBe("");
  expect(coverPreview({ rank: 1, thumbnail_urls: {} } as unknown as Clip)).toBe("");
});

/**
 * Captions and audiogram text in a script DejaVu does not cover draw real glyphs, not boxes: a
 * Japanese, Hindi, Thai or Arabic caption burned in by libass, and such a title drawn with the font boldFontFor picks,
 * must differ from the same layout drawn with characters no font has (Private Use Area code points,
 * which every font draws as the same missing-glyph box), while two such tofu strings are identical.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { boldFontFor, ffmpeg, fontFile } from "../../src/media/ffmpeg.ts";
import { drawtextSafe } from "../../src/pipeline/render/audiogram.ts";
import { buildAss } from "../../src/pipeline/render/captions.ts";
import { assFilter } from "../../src/pipeline/render/graph.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-cjk-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;

/** One grey frame of black with `filter` applied. */
async function frame(filter: string): Promise<Buffer> {
  const out = join(work, `f${n++}.raw`);
  await ffmpeg(["-y", "-v", "error", "-f", "lavfi", "-i", "color=c=black:s=540x960:d=1", "-vf", filter, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", out]);
  return readFileSync(out);
}

const differing = (a: Buffer, b: Buffer) => a.reduce((k, v, i) => k + (v !== b[i] ? 1 : 0), 0);

async function caption(tokens: string[]): Promise<Buffer> {
  const ass = join(work, `c${n++}.ass`);
  const words = tokens.map((word, i) => ({ word, start: i * 0.2, end: i * 0.2 + 0.2, speaker: "Speaker 1" }));
  writeFileSync(ass, buildAss(words, { frame: { width: 540, height: 960 }, style: "minimal", offset: 0, duration: 1 }));
  return frame(assFilter(ass, dirname(fontFile("DejaVuSans-Bold.ttf"))));
}

test("a Japanese caption is drawn in glyphs, not missing-glyph boxes", async () => {
  const japanese = await caption(["東京", "に"]);
  const tofu = await caption(["\u{E000}\u{E001}", "\u{E002}"]);
  const tofuAgain = await caption(["\u{E003}\u{E004}", "\u{E005}"]);
  expect(differing(tofu, tofuAgain)).toBe(0);
  expect(differing(japanese, tofu)).toBeGreaterThan(200);
});

test("an audiogram's Japanese title gets a font that has its characters", async () => {
  const font = boldFontFor("東京の公園");
  expect(font).toContain("CJK");
  expect(boldFontFor("Rooftop Hours")).toBe(fontFile("DejaVuSans-Bold.ttf"));
  const draw = (text: string) => frame(`drawtext=fontfile='${font}':expansion=none:text='${drawtextSafe(text)}':fontsize=48:fontcolor=white:x=20:y=100`);
  const japanese = await draw("東京の公園");
  const tofu = await draw("\u{E000}\u{E001}\u{E002}\u{E003}\u{E004}");
  expect(differing(tofu, await draw("\u{E005}\u{E006}\u{E007}\u{E008}\u{E009}"))).toBe(0);
  expect(differing(japanese, tofu)).toBeGreaterThan(200);
});

// Scripts of languages Whisper knows beyond CJK (fonts-noto-core, scripts/setup/render.sh): libass
// finds the glyphs through fontconfig, drawtext through the font boldFontFor names.
const OTHER_SCRIPTS = [
  { language: "Hindi", words: ["नमस्ते", "दुनिया"], font: "NotoSansDevanagari" },
  { language: "Thai", words: ["สวัสดี", "ครับ"], font: "NotoSansThai" },
  { language: "Arabic", words: ["مرحبا", "بالعالم"], font: "NotoSansArabic" },
];

for (const { language, words, font } of OTHER_SCRIPTS) {
  test(`a caption in ${language} is drawn in glyphs, not missing-glyph boxes`, async () => {
    const drawn = await caption(words);
    const tofu = await caption(words.map((w, i) => String.fromCodePoint(...[...w].map((_, j) => 0xe100 + i * 16 + j))));
    expect(differing(drawn, tofu)).toBeGreaterThan(200);
  });

  test(`an audiogram title in ${language} gets a font that has its characters`, async () => {
    const title = words.join(" ");
    const file = boldFontFor(title);
    expect(file).toContain(font);
    const draw = (text: string) => frame(`drawtext=fontfile='${file}':expansion=none:text='${drawtextSafe(text)}':fontsize=48:fontcolor=white:x=20:y=100`);
    const drawn = await draw(title);
    const tofu = await draw([...title].map((c, j) => (c === " " ? " " : String.fromCodePoint(0xe200 + j))).join(""));
    expect(differing(drawn, tofu)).toBeGreaterThan(200);
    // The same title with DejaVu, which lacks these letters, is what the pick avoids: boxes.
    const dejavu = await frame(`drawtext=fontfile='${fontFile("DejaVuSans-Bold.ttf")}':expansion=none:text='${drawtextSafe(title)}':fontsize=48:fontcolor=white:x=20:y=100`);
    expect(differing(drawn, dejavu)).toBeGreaterThan(200);
  });
}

import { expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fcpxmlTimeline, xmemlTimeline, type TimelineInput } from "../../../src/pipeline/editor-timelines.ts";
import { checkEditorTimeline, readTimeline } from "../../helpers/exports.ts";

/**
 * The FCPXML and Final Cut 7 XML writers, read back by OpenTimelineIO's own FCP adapters (the
 * test-only venv of scripts/setup/otio.sh): ranges at NTSC and integer rates, names with XML
 * metacharacters, captions on FCPXML's caption lane.
 */
const dir = mkdtempSync(join(tmpdir(), "clipyard-editor-timelines-"));

const input = (over: Partial<TimelineInput["source"]>): TimelineInput => ({
  title: `Ep <42> & "friends"`,
  clips: [
    { start_time: 12.347, end_time: 41.9, hook: "Bees & <hives>", title: `Why "bees" matter`, captions: [{ start: 0, end: 1.4, text: "Bees & honey" }, { start: 1.4, end: 2.9, text: "<are> great" }] },
    { start_time: 600.2, end_time: 633.05, hook: "Second one" },
  ],
  source: { name: "my episode #1.mp4", durationSeconds: 3600.5, hasVideo: true, fps: 29.97, ...over },
});

function readBoth(i: TimelineInput, name: string) {
  writeFileSync(join(dir, `${name}.fcpxml`), fcpxmlTimeline(i));
  writeFileSync(join(dir, `${name}.xml`), xmemlTimeline(i));
  return { fcpxml: readTimeline(join(dir, `${name}.fcpxml`), "fcpx_xml"), xmeml: readTimeline(join(dir, `${name}.xml`), "fcp_xml") };
}

test("an NTSC video episode: xmeml keeps every clip as a marked range within a frame; names survive escaping in both", () => {
  const i = input({});
  const { fcpxml, xmeml } = readBoth(i, "ntsc");
  expect(xmeml.map((t) => t.kind)).toEqual(["Video", "Audio"]);
  // The FCPXML adapter reads 29.97 fps as 29 frames a second, so its times drift with the hour-long source; xmeml keeps the NTSC flag.
  checkEditorTimeline(xmeml, i.clips, 1 / 29.97);
  expect(xmeml[0]!.clips[0]!.media).toBe(encodeURI("my episode #1.mp4"));
  expect(xmeml[0]!.clips[0]!.duration).toBeCloseTo(3600.5, 1);
  expect(xmeml[0]!.clips[0]!.markers[0]!.name).toBe(`Clip 1: Why "bees" matter`);
  expect(fcpxml[0]!.clips[0]!.markers.map((m) => m.name)).toEqual([`Clip 1: Why "bees" matter`, "Clip 2: Second one"]);
});

test("integer rates: a 25 fps video and an audio-only episode read back within two frames", () => {
  for (const [name, source] of [["pal", { fps: 25 }], ["audio", { hasVideo: false, fps: undefined }]] as const) {
    const i = input(source);
    const { fcpxml, xmeml } = readBoth(i, name);
    checkEditorTimeline(fcpxml, i.clips, 2 / 25);
    checkEditorTimeline(xmeml, i.clips, 1 / 25);
    expect(xmeml.map((t) => t.kind)).toEqual(name === "audio" ? ["Audio"] : ["Video", "Audio"]);
  }
});

test("FCPXML carries each clip's captions on an iTT caption lane at the clip's place in the source", () => {
  const xml = fcpxmlTimeline(input({ fps: 25 }));
  const captions = [...xml.matchAll(/<caption lane="1" offset="([^"]+)" duration="([^"]+)"[^>]*role="iTT\?captionFormat=ITT\.en">\s*<text[^>]*><text-style ref="(ts\d+)">([^<]*)<\/text-style>/g)];
  expect(captions.map((c) => [c[1], c[2], c[4]])).toEqual([
    [`${Math.round(12.347 * 25)}/25s`, `${Math.round(1.4 * 25)}/25s`, "Bees &amp; honey"],
    [`${Math.round((12.347 + 1.4) * 25)}/25s`, `${Math.round(1.5 * 25)}/25s`, "&lt;are&gt; great"],
  ]);
  // Every text style the captions use is defined once.
  expect(new Set(captions.map((c) => c[3])).size).toBe(2);
});

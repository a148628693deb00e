/**
 * Editor handoff beside timeline.otio: Final Cut Pro X XML (FCPXML 1.9, which Final Cut Pro and
 * DaVinci Resolve import) and Final Cut Pro 7 XML (xmeml 4, which Premiere Pro imports; Final Cut Pro
 * X and Resolve take FCPXML instead). Each holds the whole episode as one clip with every clip as a
 * marked range on it, so the editor starts from the full recording and the machine's selects,
 * named by rank and title. FCPXML carries each clip's burned-in captions as an iTT caption lane;
 * xmeml has no caption element, so its captions stay in the SRT sidecars. Media are named by a
 * relative path (the source's file name) that the editor relinks to its copy.
 */
import type { CaptionCue } from "./render/captions.ts";

export interface TimelineClip {
  start_time: number;
  end_time: number;
  hook: string;
  title?: string;
  /** The clip's burned-in captions, times relative to the clip. */
  captions?: CaptionCue[];
}

export interface TimelineInput {
  title: string;
  clips: TimelineClip[];
  source: { name: string; durationSeconds: number; fps?: number; hasVideo: boolean };
}

/** Audio-only sources have no frame rate: editors count their time in 25 fps frames. */
const AUDIO_RATE = 25;

/** A frame rate as editors write it: an integer time base, NTSC-flagged when the true rate is base × 1000/1001. */
interface Rate {
  timebase: number;
  ntsc: boolean;
  fps: number;
}

function rateOf(source: TimelineInput["source"]): Rate {
  const fps = source.hasVideo && source.fps ? source.fps : AUDIO_RATE;
  const timebase = Math.round(fps);
  const ntsc = Math.abs(fps - timebase) > 0.005 && Math.abs(fps - (timebase * 1000) / 1001) < 0.005;
  return ntsc ? { timebase, ntsc, fps: (timebase * 1000) / 1001 } : { timebase, ntsc: false, fps: timebase };
}

const frames = (seconds: number, rate: Rate) => Math.max(0, Math.round(seconds * rate.fps));

const escapeXml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

/** Control characters are not allowed in XML 1.0 at all. */
// eslint-disable-next-line no-control-regex
const xmlText = (s: string) => escapeXml(s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, ""));

const clipName = (clip: TimelineClip, i: number) => `Clip ${i + 1}: ${clip.title ?? clip.hook}`.slice(0, 120);

/** FCPXML rational time for a frame count: frames × frameDuration, in seconds. */
function fcpxTime(n: number, rate: Rate): string {
  if (n === 0) return "0s";
  return rate.ntsc ? `${n * 1001}/${rate.timebase * 1000}s` : `${n}/${rate.timebase}s`;
}

/** FCPXML 1.9: one project whose spine holds the episode, each clip a ranged marker and its captions on lane 1. */
export function fcpxmlTimeline(input: TimelineInput): string {
  const rate = rateOf(input.source);
  const t = (seconds: number) => fcpxTime(frames(seconds, rate), rate);
  const total = fcpxTime(frames(input.source.durationSeconds, rate), rate);
  const frameDuration = rate.ntsc ? `1001/${rate.timebase * 1000}s` : `1/${rate.timebase}s`;
  const video = input.source.hasVideo;
  const format = video
    ? `<format id="r1" name="FFVideoFormat1080p${rate.ntsc ? (rate.fps.toFixed(2).replace(".", "")) : rate.timebase}" frameDuration="${frameDuration}" width="1920" height="1080"/>`
    : `<format id="r1" name="FFVideoFormatRateUndefined" frameDuration="${frameDuration}"/>`;
  const name = xmlText(input.source.name);
  const markers = input.clips.map((c, i) => `          <marker start="${t(c.start_time)}" duration="${t(c.end_time - c.start_time)}" value="${xmlText(clipName(c, i))}"/>`);
  let style = 0;
  const captions = input.clips.flatMap((c, i) =>
    (c.captions ?? []).map((cue) => {
      const id = `ts${++style}`;
      // A caption's offset is in its parent clip's time, which is the source's own time here.
      return [
        `          <caption lane="1" offset="${t(c.start_time + cue.start)}" duration="${t(cue.end - cue.start)}" name="${xmlText(`Clip ${i + 1}: ${cue.text}`.slice(0, 80))}" role="iTT?captionFormat=ITT.en">`,
        `            <text placement="bottom"><text-style ref="${id}">${xmlText(cue.text)}</text-style></text>`,
        `            <text-style-def id="${id}"><text-style font=".AppleSystemUIFont" fontSize="13" fontFace="Regular" fontColor="1 1 1 1" backgroundColor="0 0 0 1"/></text-style-def>`,
        `          </caption>`,
      ].join("\n");
    }),
  );
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<!DOCTYPE fcpxml>`,
    `<fcpxml version="1.9">`,
    `  <resources>`,
    `    ${format}`,
    `    <asset id="r2" name="${name}" start="0s" duration="${total}" hasVideo="${video ? 1 : 0}" hasAudio="1" format="r1" audioSources="1" audioChannels="2" audioRate="48000" src="${escapeXml(encodeURI(input.source.name))}"/>`,
    `  </resources>`,
    `  <library>`,
    `    <event name="${xmlText(input.title)}">`,
    `      <project name="${xmlText(input.title)}">`,
    `        <sequence format="r1" duration="${total}" tcStart="0s" tcFormat="NDF" audioLayout="stereo" audioRate="48k">`,
    `          <spine>`,
    `        <asset-clip ref="r2" offset="0s" name="${name}" start="0s" duration="${total}" format="r1" tcFormat="NDF"${video ? "" : ` audioRole="dialogue"`}>`,
    ...markers,
    ...captions,
    `        </asset-clip>`,
    `          </spine>`,
    `        </sequence>`,
    `      </project>`,
    `    </event>`,
    `  </library>`,
    `</fcpxml>`,
    ``,
  ].join("\n");
}

/** xmeml 4 (Final Cut Pro 7 XML, Premiere Pro's import): the episode on V1 (for video) and A1, each clip a marker with in and out. */
export function xmemlTimeline(input: TimelineInput): string {
  const rate = rateOf(input.source);
  const total = frames(input.source.durationSeconds, rate);
  const rateXml = (indent: string) => `${indent}<rate><timebase>${rate.timebase}</timebase><ntsc>${rate.ntsc ? "TRUE" : "FALSE"}</ntsc></rate>`;
  const markers = input.clips.map(
    (c, i) => `            <marker><name>${xmlText(clipName(c, i))}</name><comment>${xmlText(c.hook)}</comment><in>${frames(c.start_time, rate)}</in><out>${frames(c.end_time, rate)}</out></marker>`,
  );
  const clipitem = (id: string, withFile: boolean) => [
    `          <clipitem id="${id}">`,
    `            <name>${xmlText(input.source.name)}</name>`,
    `            <duration>${total}</duration>`,
    rateXml("            "),
    `            <start>0</start><end>${total}</end><in>0</in><out>${total}</out>`,
    withFile
      ? [
          `            <file id="file-1">`,
          `              <name>${xmlText(input.source.name)}</name>`,
          `              <pathurl>${xmlText(encodeURI(input.source.name))}</pathurl>`,
          rateXml("              "),
          `              <duration>${total}</duration>`,
          `              <timecode>${rateXml("")}<string>00:00:00:00</string><frame>0</frame><displayformat>NDF</displayformat></timecode>`,
          `              <media>${input.source.hasVideo ? "<video/>" : ""}<audio><channelcount>2</channelcount></audio></media>`,
          `            </file>`,
        ].join("\n")
      : `            <file id="file-1"/>`,
    ...markers,
    `          </clipitem>`,
  ];
  const video = input.source.hasVideo
    ? [`      <video>`, `        <format><samplecharacteristics>${rateXml("")}<width>1920</width><height>1080</height></samplecharacteristics></format>`, `        <track>`, ...clipitem("clipitem-1", true), `        </track>`, `      </video>`]
    : [];
  const audio = [`      <audio>`, `        <track>`, ...clipitem(input.source.hasVideo ? "clipitem-2" : "clipitem-1", !input.source.hasVideo), `        </track>`, `      </audio>`];
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<!DOCTYPE xmeml>`,
    `<xmeml version="4">`,
    `  <sequence id="sequence-1">`,
    `    <name>${xmlText(input.title)}</name>`,
    `    <duration>${total}</duration>`,
    rateXml("    "),
    `    <media>`,
    ...video,
    ...audio,
    `    </media>`,
    `  </sequence>`,
    `</xmeml>`,
    ``,
  ].join("\n");
}

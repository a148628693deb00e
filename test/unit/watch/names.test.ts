import { expect, test } from "bun:test";
import { MEDIA_DEMUXERS, MEDIA_FILE_EXTENSIONS } from "../../../src/media/ffmpeg.ts";
import { isWatchableName } from "../../../src/watch/names.ts";

test("media files of the allowed containers are candidates, whatever the case of the extension", () => {
  for (const name of ["episode.mp4", "Interview.MOV", "call.wav", "show.m4a", "talk.mkv", "clip.webm", "pod.mp3", "a.flac", "b.ogg", "c.opus", "d.ts"]) {
    expect(isWatchableName(name)).toBe(true);
  }
});

test("files still being written, hidden files, lock files and non-media are not", () => {
  for (const name of [
    "episode.mp4.part", "episode.mp4.crdownload", "episode.mp4.partial", "episode.mp4.download", "episode.mp4.tmp",
    ".episode.mp4", "._episode.mp4", ".episode.mp4.XyZ12", "~$episode.mp4",
    "notes.txt", "playlist.m3u8", "list.ffconcat", "stream.sdp", "cover.jpg", "episode", "mp4",
  ]) {
    expect(isWatchableName(name)).toBe(false);
  }
});

test("every allowed container names at least one extension, and no extension belongs to two", () => {
  for (const demuxer of MEDIA_DEMUXERS) expect(MEDIA_FILE_EXTENSIONS[demuxer].length).toBeGreaterThan(0);
  const all = Object.values(MEDIA_FILE_EXTENSIONS).flat();
  expect(new Set(all).size).toBe(all.length);
});

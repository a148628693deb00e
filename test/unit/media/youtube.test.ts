import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { downloadYoutube, YoutubeError } from "../../../src/media/youtube.ts";

// This machine reaches no video site, so the failure path is what can run here: yt-dlp really runs,
// really fails to connect, and the failure surfaces as a YoutubeError with its reason.
test("an unreachable video fails with yt-dlp's reason and leaves no file", async () => {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-yt-"));
  const err = await downloadYoutube("https://www.youtube.com/watch?v=dQw4w9WgXcQ", dir, { maxBytes: 1e9, maxSeconds: 3600, timeoutMs: 60_000 }).catch((e) => e);
  expect(err).toBeInstanceOf(YoutubeError);
  expect(err.message).toMatch(/could not be downloaded: .+/);
  expect(readdirSync(dir).filter((f) => f.startsWith("source."))).toEqual([]);
}, 90_000);

test("a missing yt-dlp binary is a clear error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-yt-"));
  const err = await downloadYoutube("https://youtu.be/dQw4w9WgXcQ", dir, { ytdlpPath: "/nonexistent/yt-dlp", maxBytes: 1e9, maxSeconds: 60 }).catch((e) => e);
  expect(err).toBeInstanceOf(YoutubeError);
  expect(err.message).toMatch(/yt-dlp|could not be downloaded/);
});

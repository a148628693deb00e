import { describe, expect, test } from "bun:test";
import { checkSourceUrl, youtubeId } from "../../../src/jobs/source-url.ts";

const strict = { allowHttp: false };

describe("checkSourceUrl", () => {
  test("accepts public HTTPS media URLs", () => {
    for (const u of ["https://cdn.example.com/ep/1.mp4", "https://example.org/a.mp3?x=1", "https://s3.amazonaws.com/b/k"]) {
      expect(checkSourceUrl("video_url", u, strict)).toBeNull();
    }
  });
  test("rejects malformed, non-https and credentialed URLs", () => {
    for (const u of ["not a url", "", "ftp://x.com/a.mp4", "http://x.com/a.mp4", "https://user:pw@x.com/a.mp4", "https://localhost/a.mp4", "/a.mp4", "https://exa mple.com/a.mp4"]) {
      expect(checkSourceUrl("video_url", u, strict)).not.toBeNull();
    }
  });
  test("http is allowed only when configured", () => {
    expect(checkSourceUrl("video_url", "http://127.0.0.1:9000/a.mp4", { allowHttp: true })).toBeNull();
  });
  test("youtube: watch, shorts and short-link forms", () => {
    for (const u of [
      "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
      "https://youtube.com/watch?v=dQw4w9WgXcQ&t=10",
      "https://m.youtube.com/watch?v=dQw4w9WgXcQ",
      "https://www.youtube.com/shorts/dQw4w9WgXcQ",
      "https://youtu.be/dQw4w9WgXcQ",
      "https://youtu.be/dQw4w9WgXcQ?si=abc",
    ]) {
      expect(checkSourceUrl("youtube_url", u, strict)).toBeNull();
    }
    for (const u of ["https://vimeo.com/123", "https://www.youtube.com/watch?v=short", "https://www.youtube.com/channel/abc", "https://youtu.be/"]) {
      expect(checkSourceUrl("youtube_url", u, strict)).not.toBeNull();
    }
    expect(youtubeId(new URL("https://youtu.be/dQw4w9WgXcQ"))).toBe("dQw4w9WgXcQ");
  });
});

import { extname } from "node:path";

const TYPES: Record<string, string> = {
  ".mp4": "video/mp4",
  ".m4a": "audio/mp4",
  ".mp3": "audio/mpeg",
  ".md": "text/markdown; charset=utf-8",
  ".json": "application/json",
  ".vtt": "text/vtt; charset=utf-8",
  ".srt": "application/x-subrip; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".otio": "application/json",
  ".fcpxml": "application/xml; charset=utf-8",
  ".xml": "application/xml; charset=utf-8",
  ".png": "image/png",
  ".jpg": "image/jpeg",
};

export const contentTypeFor = (path: string): string => TYPES[extname(path).toLowerCase()] ?? "application/octet-stream";

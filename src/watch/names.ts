import { extname } from "node:path";
import { MEDIA_FILE_EXTENSIONS } from "../media/ffmpeg.ts";

const EXTENSIONS = new Set(Object.values(MEDIA_FILE_EXTENSIONS).flat());

/**
 * Names that copy tools, browsers and editors give a file while it is still being written, or
 * that are not the user's media at all: hidden files (macOS ._ forks, rsync's .name.XXXX temps),
 * Office lock files, and the usual in-progress suffixes.
 */
const IN_PROGRESS = /^(\.|~\$)|\.(part|partial|crdownload|download|tmp|temp)$/i;

/** Whether a file in a watched folder is a candidate for a job: an allowed media container's extension, not in progress. */
export function isWatchableName(name: string): boolean {
  if (IN_PROGRESS.test(name)) return false;
  return EXTENSIONS.has(extname(name).toLowerCase());
}

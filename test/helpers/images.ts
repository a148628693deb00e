import { readFileSync } from "node:fs";
import { join } from "node:path";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

/**
 * A real image made by ffmpeg from a colour source: `colour` fills it, an optional `stripe` colour
 * fills its left half (so a test can tell the logo's orientation apart). Returns the file's bytes.
 */
export function makeImage(o: { width: number; height: number; format: "png" | "jpeg" | "gif"; colour?: string; stripe?: string }): Uint8Array<ArrayBuffer> {
  const dir = mkdtempSync(join(tmpdir(), "clipyard-img-"));
  try {
    const out = join(dir, `image.${o.format === "jpeg" ? "jpg" : o.format}`);
    const fill = `color=c=${o.colour ?? "0xFF00FF"}:s=${o.width}x${o.height}:d=1`;
    const graph = o.stripe ? `drawbox=x=0:y=0:w=${Math.floor(o.width / 2)}:h=${o.height}:color=${o.stripe}:t=fill` : "null";
    const r = Bun.spawnSync(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", fill, "-vf", graph, "-frames:v", "1", ...(o.format === "jpeg" ? ["-q:v", "2"] : []), out]);
    if (r.exitCode !== 0) throw new Error(`ffmpeg could not make the test image: ${r.stderr.toString()}`);
    return new Uint8Array(readFileSync(out));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const SVG_LOGO = new TextEncoder().encode('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64" fill="#f0f"/></svg>');

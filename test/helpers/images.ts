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

/**
 * Files a brand image field (the logo, a card's picture) must refuse, each named: other formats, a
 * PNG signature over garbage, a truncated PNG, and sizes out of bounds.
 */
export function badImages(): Array<[string, Uint8Array<ArrayBuffer>]> {
  const png = makeImage({ width: 300, height: 100, format: "png" });
  return [
    ["svg", SVG_LOGO],
    ["gif", makeImage({ width: 64, height: 64, format: "gif" })],
    ["text", new TextEncoder().encode("not an image at all\n")],
    ["png magic over garbage", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Uint8Array(200).fill(7)])],
    ["truncated png", png.subarray(0, Math.floor(png.length / 2))],
    ["too wide", makeImage({ width: 5000, height: 20, format: "png" })],
    ["too small", makeImage({ width: 8, height: 8, format: "png" })],
  ];
}

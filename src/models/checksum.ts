import { createHash } from "node:crypto";
import { createReadStream, existsSync, statSync } from "node:fs";
import type { ModelFileSpec } from "./manifest.ts";

export interface FileDigest {
  size: number;
  sha256: string;
  sha1: string;
}

/** Streams the file once and returns both digests the manifest may hold. */
export async function digestFile(path: string): Promise<FileDigest> {
  const h256 = createHash("sha256");
  const h1 = createHash("sha1");
  let size = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
    h256.update(chunk as Buffer);
    h1.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { size, sha256: h256.digest("hex"), sha1: h1.digest("hex") };
}

export type Verdict = { ok: true } | { ok: false; reason: string };

/** A file is good only when its size and every official checksum the manifest records match. */
export async function verifyFile(path: string, spec: Pick<ModelFileSpec, "size" | "sha256" | "sha1">): Promise<Verdict> {
  if (!existsSync(path)) return { ok: false, reason: "missing" };
  const size = statSync(path).size;
  if (size !== spec.size) return { ok: false, reason: `size ${size} != official ${spec.size}` };
  const d = await digestFile(path);
  if (spec.sha256 && d.sha256 !== spec.sha256) return { ok: false, reason: `sha256 ${d.sha256} != official ${spec.sha256}` };
  if (spec.sha1 && d.sha1 !== spec.sha1) return { ok: false, reason: `sha1 ${d.sha1} != official ${spec.sha1}` };
  return { ok: true };
}

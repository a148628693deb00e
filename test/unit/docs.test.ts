import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { Glob } from "bun";
import { ROOT_DIR } from "../../src/config.ts";
import { ERRORS } from "../../src/errors.ts";

test("docs/api.md's error table is the error module's table", () => {
  const doc = readFileSync(join(ROOT_DIR, "docs/api.md"), "utf8");
  const table = doc.split("<!-- error-table:start -->")[1]!.split("<!-- error-table:end -->")[0]!;
  const rows = table
    .trim()
    .split("\n")
    .slice(2)
    .map((line) => line.split("|").map((c) => c.trim()).slice(1, 4));
  // Regenerate with: bun scripts/docs/error-table.ts
  const expected = Object.entries(ERRORS).map(([code, d]) => [`\`${code}\``, d.type, d.status === null ? "—" : String(d.status)]);
  expect(rows).toEqual(expected);
});

/** GitHub's heading anchors: lower case, punctuation other than "-" and "_" dropped, spaces to "-". */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

test("the heading anchors are GitHub's", () => {
  expect(slug("Default recogniser: whisper-base against whisper-tiny.en (issue 30, 2026-11-26)")).toBe("default-recogniser-whisper-base-against-whisper-tinyen-issue-30-2026-11-26");
  expect(slug("Turns on sentences, quiet input, recogniser choice (before / after)")).toBe("turns-on-sentences-quiet-input-recogniser-choice-before--after");
});

test("every relative link in README.md and docs/ names a file that exists, and a heading (or <a id>) in it when it names one", () => {
  const pages = ["README.md", "CHANGELOG.md", ...[...new Glob("docs/**/*.md").scanSync(ROOT_DIR)]];
  expect(pages).toContain("docs/benchmarks/tests.md");
  const anchors = (path: string) => {
    const text = readFileSync(join(ROOT_DIR, path), "utf8").replace(/```[\s\S]*?```/g, "");
    const ids = [...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1]!);
    return new Set([...[...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1]!)), ...ids]);
  };
  const broken: string[] = [];
  for (const page of pages) {
    const text = readFileSync(join(ROOT_DIR, page), "utf8").replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target!)) continue;
      const [file, anchor] = target!.split("#");
      const path = file ? posix.normalize(posix.join(posix.dirname(page), file)) : page;
      // The spec and the shared recordings sit beside the checkout, not in it.
      if (path.startsWith("../")) continue;
      if (!existsSync(join(ROOT_DIR, path))) broken.push(`${page}: ${target} (no ${path})`);
      else if (anchor && path.endsWith(".md") && !anchors(path).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor} in ${path})`);
    }
  }
  expect(broken).toEqual([]);
});

test("every test file the docs and the source's comments name exists (test files move with what they test)", () => {
  const files = ["README.md", ...new Glob("docs/**/*.md").scanSync(ROOT_DIR), ...new Glob("src/**/*.ts").scanSync(ROOT_DIR), ...new Glob("scripts/**/*.{ts,sh}").scanSync(ROOT_DIR)];
  const missing: string[] = [];
  let named = 0;
  for (const file of files) {
    for (const [path] of readFileSync(join(ROOT_DIR, file), "utf8").matchAll(/\btest\/[\w./-]+\.test\.ts\b/g)) {
      named++;
      if (!existsSync(join(ROOT_DIR, path))) missing.push(`${file}: ${path}`);
    }
  }
  expect(named).toBeGreaterThan(20);
  expect(missing).toEqual([]);
});

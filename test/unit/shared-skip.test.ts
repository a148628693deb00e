/**
 * The skip rule of test/helpers/shared.ts, run as bun runs it: a test file that needs the shared
 * recordings, in a child `bun test` with CLIPYARD_SHARED_MEDIA pointing at a folder that is not
 * there, is skipped with one line; with CLIPYARD_REQUIRE_SHARED=1 (what .ci/run sets) it fails;
 * with the folder present it runs.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-shared-skip-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
// Outside the repository, so a whole-suite run never picks the child's file up.
const dir = join(work, "suite");
mkdirSync(dir);
const file = join(dir, "needs-media.test.ts");
writeFileSync(
  file,
  `import { expect } from "bun:test";
import { existsSync } from "node:fs";
import { SHARED_MEDIA, beforeAllShared, describeShared, testShared } from ${JSON.stringify(join(ROOT, "test/helpers/shared.ts"))};
beforeAllShared(() => { if (!existsSync(SHARED_MEDIA)) throw new Error("hook ran without the media"); });
testShared("reads a recording", () => { expect(existsSync(SHARED_MEDIA + "/a.wav")).toBe(true); });
describeShared("a group", () => { if (!existsSync(SHARED_MEDIA)) throw new Error("body ran without the media"); testShared("inner", () => {}); });
`,
);

function run(env: Record<string, string>) {
  const childEnv: Record<string, string | undefined> = { ...process.env, ...env };
  if (!("CLIPYARD_REQUIRE_SHARED" in env)) delete childEnv.CLIPYARD_REQUIRE_SHARED;
  const r = Bun.spawnSync(["bun", "test", file], { cwd: dir, env: childEnv, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, out: r.stdout.toString() + r.stderr.toString() };
}

test("absent: every shared test is skipped, and the file says why in one line", () => {
  const r = run({ CLIPYARD_SHARED_MEDIA: join(work, "missing") });
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/ 0 pass/);
  expect(r.out).toMatch(/ 2 skip/);
  expect(r.out.split("\n").filter((l) => l.includes("skipped: needs ../shared/media (set CLIPYARD_SHARED_MEDIA)"))).toHaveLength(1);
}, 60_000);

test("absent with CLIPYARD_REQUIRE_SHARED=1: the shared tests fail and name the missing folder", () => {
  const r = run({ CLIPYARD_SHARED_MEDIA: join(work, "missing"), CLIPYARD_REQUIRE_SHARED: "1" });
  expect(r.code).not.toBe(0);
  expect(r.out).toMatch(/ 2 fail/);
  expect(r.out).toContain(`needs the shared recordings at ${join(work, "missing")}`);
}, 60_000);

test("present: they run", () => {
  const media = join(work, "media");
  mkdirSync(media, { recursive: true });
  writeFileSync(join(media, "a.wav"), "");
  const r = run({ CLIPYARD_SHARED_MEDIA: media, CLIPYARD_REQUIRE_SHARED: "1" });
  expect(r.out).toMatch(/ 2 pass/);
  expect(r.code).toBe(0);
}, 60_000);

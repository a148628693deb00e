/**
 * The skip rule for tests that read the shared real recordings (../shared/media, or
 * CLIPYARD_SHARED_MEDIA): a fresh clone without them still passes, and says in one line per file
 * what it skipped. CI sets CLIPYARD_REQUIRE_SHARED=1 (.ci/run), which turns their absence into a
 * failing test, so CI never passes by skipping them.
 */
import { afterAll, beforeAll, describe, test } from "bun:test";
import { existsSync } from "node:fs";
import { SHARED_MEDIA } from "./paths.ts";

export { SHARED_MEDIA };

export const SHARED_PRESENT = existsSync(SHARED_MEDIA);
const REQUIRED = process.env.CLIPYARD_REQUIRE_SHARED === "1";
export const SHARED_SKIP_LINE = "skipped: needs ../shared/media (set CLIPYARD_SHARED_MEDIA)";

const noted = new Set<string>();
/** The test file that called: the line is printed once per file, not once per test. */
function callerFile(): string {
  const frames = new Error().stack?.split("\n") ?? [];
  return frames.find((f) => /\.test\.ts/.test(f))?.match(/\(?([^\s()]+\.test\.ts)/)?.[1] ?? "";
}
function noteSkip(): void {
  const file = callerFile();
  if (noted.has(file)) return;
  noted.add(file);
  console.warn(`${file ? `${file}: ` : ""}${SHARED_SKIP_LINE}`);
}
function missing(name: string): void {
  if (REQUIRED) {
    test(name, () => {
      throw new Error(`needs the shared recordings at ${SHARED_MEDIA}, which is missing (CLIPYARD_REQUIRE_SHARED=1 makes that a failure)`);
    });
  } else {
    noteSkip();
    test.skip(`${name} (needs ../shared/media)`, () => {});
  }
}

/** test(), run only where the shared recordings are present. */
export function testShared(name: string, fn: () => unknown, timeout?: number): void {
  if (SHARED_PRESENT) test(name, fn as () => void, timeout);
  else missing(name);
}

/** test.skipIf(cond)(), for a shared test that also has a reason of its own to skip (no GPU …). */
testShared.skipIf = (skip: boolean) => (name: string, fn: () => unknown, timeout?: number): void => {
  if (skip) test.skip(name, fn as () => void);
  else testShared(name, fn, timeout);
};

/** describe(), run only where the shared recordings are present; its body is not even evaluated otherwise. */
export function describeShared(name: string, fn: () => void): void {
  if (SHARED_PRESENT) describe(name, fn);
  else missing(name);
}

/** Top-level hooks of a file whose tests all need the shared recordings (bun runs them even when every test is skipped). */
export function beforeAllShared(fn: () => unknown, timeout?: number): void {
  if (SHARED_PRESENT) beforeAll(fn as () => void, timeout);
}
export function afterAllShared(fn: () => unknown, timeout?: number): void {
  if (SHARED_PRESENT) afterAll(fn as () => void, timeout);
}

/** A path in the shared recordings (for module-level values; read it only inside shared tests). */
export const sharedFile = (name: string) => `${SHARED_MEDIA}/${name}`;

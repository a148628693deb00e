import { expect, test } from "bun:test";
import { SettleTracker } from "../../../src/watch/settle.ts";

const stamp = (size: number, mtimeMs = 1000) => ({ size, mtimeMs });

test("a file is settled once two looks, the settle interval apart, read the same size and mtime", () => {
  const t = new SettleTracker(2000);
  expect(t.observe("a.wav", stamp(10), 0)).toBe(false);
  expect(t.observe("a.wav", stamp(10), 1000)).toBe(false); // unchanged, but not for long enough
  expect(t.observe("a.wav", stamp(10), 2000)).toBe(true);
});

test("a single look is never enough, however old the file", () => {
  const t = new SettleTracker(2000);
  expect(t.observe("a.wav", stamp(10), 1_000_000)).toBe(false);
});

test("a growing file, or one whose mtime moves, starts the wait again", () => {
  const t = new SettleTracker(2000);
  expect(t.observe("a.wav", stamp(10), 0)).toBe(false);
  expect(t.observe("a.wav", stamp(20), 1500)).toBe(false);
  expect(t.observe("a.wav", stamp(20), 3000)).toBe(false); // only 1.5 s since it last grew
  expect(t.observe("a.wav", stamp(20, 4000), 3600)).toBe(false); // rewritten in place, same size
  expect(t.observe("a.wav", stamp(20, 4000), 5000)).toBe(false);
  expect(t.observe("a.wav", stamp(20, 4000), 5600)).toBe(true);
});

test("files are tracked separately, and forgetting one (taken or deleted) starts it afresh", () => {
  const t = new SettleTracker(1000);
  t.observe("a.wav", stamp(1), 0);
  t.observe("b.wav", stamp(2), 500);
  expect(t.observe("a.wav", stamp(1), 1000)).toBe(true);
  expect(t.observe("b.wav", stamp(2), 1000)).toBe(false);
  t.retain(new Set(["a.wav"]));
  expect(t.observe("b.wav", stamp(2), 1600)).toBe(false);
  t.forget("a.wav");
  expect(t.observe("a.wav", stamp(1), 5000)).toBe(false);
});

import { expect, test } from "bun:test";
import { LIP_SYNC_FPS, lipSyncWindows } from "../../../../src/pipeline/render/lip-sync.ts";
import { TURN_EDGE_SECONDS } from "../../../../src/pipeline/render/faces.ts";

// A clip's turns come from the words that overlap it, so a turn can run far outside the clip. The
// windows where mouths are read must lie inside the clip: one outside it became a negative decode
// length (`-t -0.150`), which ffmpeg refused, and the trailer failed (job bench, issue 37).
const clip = { start: 100, end: 130 };
const turns = [
  { speaker: "A", start: 60, end: 100.5 }, // ends just inside the clip: its middle lies far before it
  { speaker: "B", start: 100.5, end: 112 },
  { speaker: "A", start: 112, end: 140 }, // runs past the clip's end
];

test("every window lies inside the clip, with room for a reading", () => {
  const windows = lipSyncWindows(turns, TURN_EDGE_SECONDS, clip);
  expect(windows.length).toBeGreaterThan(0);
  for (const w of windows) {
    expect(w.start).toBeGreaterThanOrEqual(clip.start);
    expect(w.end).toBeLessThanOrEqual(clip.end);
    expect((w.end - w.start) * LIP_SYNC_FPS).toBeGreaterThanOrEqual(8);
  }
  // Speaker A is read in the part of the long turn inside the clip, not in the middle of the whole turn.
  expect(windows.some((w) => w.start >= 112 && w.end <= 130)).toBe(true);
});

test("without the clip's bounds the windows follow the whole turns (the case that failed)", () => {
  const unbounded = lipSyncWindows(turns, TURN_EDGE_SECONDS);
  expect(unbounded.some((w) => w.end < clip.start)).toBe(true);
});

test("a turn that only touches the clip gives no window", () => {
  expect(lipSyncWindows([{ speaker: "A", start: 60, end: 100.2 }], TURN_EDGE_SECONDS, clip)).toEqual([]);
});

import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statfsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dataDirCheck } from "../../src/cli/doctor.ts";

/** `clipyard doctor` reports the data disk's free space and the reserve uploads and new jobs stop at. */
const dir = mkdtempSync(join(tmpdir(), "clipyard-doctor-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the data directory check shows free space, the disk's size and the reserve, and fails under it", () => {
  const { bavail, blocks, bsize } = statfsSync(dir);
  const free = bavail * bsize;
  const auto = dataDirCheck({ dataDir: dir, diskReserveBytes: undefined });
  expect(auto.data).toMatchObject({ path: dir, totalBytes: blocks * bsize, reserveBytes: Math.max(1024 ** 3, Math.min(Math.ceil(blocks * bsize * 0.05), 10 * 1024 ** 3)), reserveFrom: "max(1 GiB, 5 % of the disk up to 10 GiB)" });
  expect(Math.abs((auto.data!.freeBytes as number) - free)).toBeLessThan(64 * 1024 * 1024);
  expect(auto.detail).toMatch(new RegExp(`^${dir}: [\\d.]+ GB free of [\\d.]+ GB; reserve [\\d.]+ GB \\(max\\(1 GiB, 5 % of the disk up to 10 GiB\\)\\)`));

  const none = dataDirCheck({ dataDir: dir, diskReserveBytes: 0 });
  expect(none).toMatchObject({ status: "ok", data: { reserveBytes: 0, reserveFrom: "CLIPYARD_DISK_RESERVE_BYTES" } });
  const under = dataDirCheck({ dataDir: dir, diskReserveBytes: free * 2 });
  expect(under.status).toBe("fail");
  expect(under.detail).toContain("uploads and new jobs are refused");
  expect(dataDirCheck({ dataDir: dir, diskReserveBytes: Math.floor(free * 0.75) }).status).toBe("warn");
  expect(dataDirCheck({ dataDir: join(dir, "missing"), diskReserveBytes: 0 }).status).toBe("fail");
});

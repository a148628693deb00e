import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { uploadFilePath } from "../../src/pipeline/acquire.ts";
import { FolderWatcher } from "../../src/watch/watcher.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { speechWav } from "../helpers/speech.ts";

/**
 * Issue 36 (8): the listing skipped symlinks, but the stat, probe and copy that followed opened the
 * path again and followed one swapped in meanwhile: another organisation's source was ingested.
 * The swap is made deterministic by the watcher's beforeOpen seam, which runs after the listing,
 * the stat and the settle check, exactly where the race's window is.
 */
let app: TestAppliance;
const root = mkdtempSync(join(tmpdir(), "watch-race-"));
const folder = join(root, "watched");
const victim = join(root, "other-org", "their-episode.wav");
const ours = join(root, "ours.wav");
beforeAll(async () => {
  app = await startAppliance({ scheduler: false });
  mkdirSync(folder);
  mkdirSync(join(root, "other-org"));
  copyFileSync(speechWav(), victim);
  const p = Bun.spawn(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "sine=f=300:sample_rate=16000", "-t", "3", ours]);
  expect(await p.exited).toBe(0);
  // The attacker can stat the victim's file, not read it: theirs is padded to its size, and the copy
  // in the folder gets its mtime (below), so a re-stat through the symlink sees the settled version.
  truncateSync(ours, statSync(victim).size);
});

/** Puts our file into the folder as `name` with the victim's size and modification time. */
function placeLookalike(name: string) {
  const to = join(folder, name);
  copyFileSync(ours, join(folder, "incoming"));
  renameSync(join(folder, "incoming"), to);
  const v = statSync(victim);
  utimesSync(to, v.atime, v.mtime);
  return to;
}
afterAll(async () => {
  await app.stop();
  rmSync(root, { recursive: true, force: true });
});

function watcher(beforeOpen: (path: string) => void) {
  const { ctx } = app;
  const org = ensureOrg(ctx.db, "watch-race", ctx.clock);
  return new FolderWatcher({
    db: ctx.db,
    clock: ctx.clock,
    dataDir: app.dataDir,
    uploads: ctx.uploads,
    timeScale: 1,
    liveEffects: ctx.submitEffects,
    folder,
    scope: { orgId: org.id, env: "live" },
    options: {},
    present: ctx.present,
    settleMs: 1,
    onJobs: () => {},
    beforeOpen,
  });
}

const uploadsOfOrg = () => app.ctx.db.$client.query("SELECT id FROM uploads").all() as Array<{ id: string }>;

/** Scans until the watcher has settled the file and reached the open (the settle check needs two looks). */
async function scanUntil(w: FolderWatcher, reached: () => boolean) {
  for (let i = 0; i < 50 && !reached(); i++) {
    await w.scan();
    await Bun.sleep(2); // the settle interval is 1 ms of real time between two looks
  }
  expect(reached()).toBe(true);
}

test("a settled file swapped for a symlink between the check and the open is not followed", async () => {
  const episode = placeLookalike("episode.wav");
  let swapped = 0;
  const w = watcher((path) => {
    if (swapped++) return;
    // The attacker's move: the settled file becomes a symlink to another organisation's source.
    rmSync(path);
    symlinkSync(victim, path);
  });
  await scanUntil(w, () => swapped > 0);
  expect(uploadsOfOrg()).toEqual([]);
  expect(app.ctx.db.$client.query("SELECT count(*) AS n FROM jobs").get()).toEqual({ n: 0 });
  expect(app.ctx.db.$client.query("SELECT count(*) AS n FROM watch_files").get()).toEqual({ n: 0 });

  // Later scans list the symlink and skip it; once the real file is back it is taken, and what is
  // copied is our file, byte for byte.
  await w.scan();
  expect(uploadsOfOrg()).toEqual([]);
  rmSync(episode);
  placeLookalike("episode.wav");
  await scanUntil(w, () => uploadsOfOrg().length > 0);
  const [upload] = uploadsOfOrg();
  expect(readFileSync(uploadFilePath(app.dataDir, upload!.id)).equals(readFileSync(ours))).toBe(true);
  await w.stop();
});

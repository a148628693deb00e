import { test } from "bun:test";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A real small disk for disk-exhaustion tests: a tmpfs of `sizeMiB` mounted in a temp folder, so the
 * kernel itself answers ENOSPC. Where this user may not mount, the file's tests are skipped with one
 * line saying why (`onTmpfs` is test or test.skip). `cleanup` unmounts and removes it (afterAll).
 */
export function smallDisk(sizeMiB: number, prefix: string): { root: string; disk: string; mounted: boolean; onTmpfs: typeof test; cleanup(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const disk = join(root, "disk");
  mkdirSync(disk);
  let mounted = false;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMiB}m`, "tmpfs", disk], { stdio: "pipe" });
    mounted = true;
  } catch (err) {
    console.log(`skipped: the disk-exhaustion tests need to mount a tmpfs, which this user may not (${(err as Error).message.split("\n")[0]})`);
  }
  return {
    root,
    disk,
    mounted,
    onTmpfs: mounted ? test : (test.skip as typeof test),
    cleanup() {
      if (mounted) execFileSync("umount", [disk]);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

import { copyFileSync, linkSync, lstatSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

export interface CopiedFile {
  /** Path relative to the copied folder, with forward slashes. */
  path: string;
  size: number;
}

/**
 * Copies a folder tree file by file while the appliance may be writing to it (backup, restore).
 * Files that are hard links of each other in the source (an upload and the job source made from it)
 * stay one file in the copy. A file or folder that vanishes mid-walk (an expired upload, a job's
 * work folder removed on completion) is skipped, not an error; symbolic links are not followed.
 */
export function copyTree(from: string, to: string, keep: (path: string) => boolean = () => true): CopiedFile[] {
  const copied: CopiedFile[] = [];
  const seen = new Map<string, string>();
  const walk = (dir: string) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
      throw err;
    }
    for (const name of names) {
      const src = join(dir, name);
      let st;
      try {
        st = lstatSync(src);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw err;
      }
      if (st.isDirectory()) {
        walk(src);
        continue;
      }
      if (!st.isFile()) continue;
      const rel = relative(from, src);
      if (!keep(rel)) continue;
      const dest = join(to, rel);
      mkdirSync(dirname(dest), { recursive: true });
      const inode = `${st.dev}:${st.ino}`;
      const twin = st.nlink > 1 ? seen.get(inode) : undefined;
      try {
        if (twin) linkSync(twin, dest);
        else copyFileSync(src, dest);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
        throw err;
      }
      if (st.nlink > 1 && !twin) seen.set(inode, dest);
      // The size copied, not the one listed: a file still being written may have grown since.
      copied.push({ path: rel.split("\\").join("/"), size: statSync(dest).size });
    }
  };
  walk(from);
  return copied;
}

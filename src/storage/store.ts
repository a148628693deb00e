import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

/**
 * Where a job's outputs, its resumable checkpoint and completed uploads live between nodes. Keys are
 * slash-separated paths ("jobs/<id>/out/clip1_x.mp4"). The local store maps them onto the data
 * directory exactly where the appliance has always kept those files, so the embedded default is
 * unchanged; the S3 store (s3.ts) puts them in a bucket every node shares.
 */
export interface ObjectStore {
  /** True when other nodes see what this one writes (S3); false for the data directory. */
  readonly shared: boolean;
  /** Copies a local file to `key`; `meta` sets what a presigned download answers with. */
  putFile(key: string, path: string, meta?: ObjectMeta): Promise<void>;
  putText(key: string, text: string): Promise<void>;
  /** The object's text, or undefined when there is none. */
  getText(key: string): Promise<string | undefined>;
  /** Copies the object to a local file; false when there is none. */
  download(key: string, path: string): Promise<boolean>;
  /** The object as a lazily read Blob (slice() reads a range), or undefined when there is none. */
  open(key: string): Promise<{ size: number; body: Blob } | undefined>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Deletes every object under `prefix` (which ends with "/"). */
  deletePrefix(prefix: string): Promise<void>;
  /** Keys under `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
  /** A short-lived URL that downloads the object without credentials; undefined where there is none (local disk). */
  presign(key: string, expiresInSeconds: number): string | undefined;
}

export interface ObjectMeta {
  contentType?: string;
  contentDisposition?: string;
}

/** Keys come from the appliance (ids it made, names it chose), never from a request; checked anyway. */
export function checkKey(key: string): string {
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/?$/.test(key) || key.split("/").some((p) => p === "." || p === "..")) throw new Error(`bad object key ${JSON.stringify(key)}`);
  return key;
}

/** Keys under the data directory: the files stay where a single appliance always kept them. */
export class LocalStore implements ObjectStore {
  readonly shared = false;
  constructor(readonly root: string) {}

  path(key: string): string {
    return join(this.root, checkKey(key));
  }

  async putFile(key: string, path: string): Promise<void> {
    const to = this.path(key);
    if (resolve(path) === resolve(to)) return;
    mkdirSync(dirname(to), { recursive: true });
    copyFileSync(path, to);
  }

  async putText(key: string, text: string): Promise<void> {
    const to = this.path(key);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, text);
  }

  async getText(key: string): Promise<string | undefined> {
    try {
      return readFileSync(this.path(key), "utf8");
    } catch {
      return undefined;
    }
  }

  async download(key: string, path: string): Promise<boolean> {
    const from = this.path(key);
    if (!existsSync(from)) return false;
    if (resolve(from) !== resolve(path)) copyFileSync(from, path);
    return true;
  }

  async open(key: string): Promise<{ size: number; body: Blob } | undefined> {
    const path = this.path(key);
    try {
      const st = statSync(path);
      return st.isFile() ? { size: st.size, body: Bun.file(path) } : undefined;
    } catch {
      return undefined;
    }
  }

  async exists(key: string): Promise<boolean> {
    return existsSync(this.path(key));
  }

  async delete(key: string): Promise<void> {
    rmSync(this.path(key), { force: true });
  }

  async deletePrefix(prefix: string): Promise<void> {
    rmSync(this.path(prefix), { recursive: true, force: true });
  }

  async list(prefix: string): Promise<string[]> {
    const base = this.path(prefix);
    if (!existsSync(base)) return [];
    const out: string[] = [];
    for (const name of readdirSync(base, { recursive: true }) as string[]) {
      const full = join(base, name);
      if (statSync(full).isFile()) out.push(relative(this.root, full).split(sep).join("/"));
    }
    return out.sort();
  }

  presign(): undefined {
    return undefined;
  }
}

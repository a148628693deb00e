import { S3Client } from "bun";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { S3Settings } from "../config.ts";
import { checkKey, type ObjectMeta, type ObjectStore } from "./store.ts";

export type { S3Settings };

const notFound = (err: unknown) => {
  const e = err as { code?: string; name?: string };
  return e?.code === "NoSuchKey" || e?.code === "ERR_S3_FILE_NOT_FOUND" || e?.name === "NoSuchKey";
};

/**
 * An S3-compatible bucket through Bun's built-in client (no dependency, and it is inside the compiled
 * binary). Path-style addressing (BUCKET under the endpoint's path) is Bun's default with an
 * endpoint, which is what MinIO, SeaweedFS and Ceph expect. The endpoint is operator configuration:
 * its traffic does not go through the SSRF-safe fetcher that guards user-given URLs.
 */
export class S3Store implements ObjectStore {
  readonly shared = true;
  private readonly client: S3Client;

  constructor(readonly settings: S3Settings) {
    this.client = new S3Client({
      bucket: settings.bucket,
      endpoint: settings.endpoint,
      region: settings.region,
      accessKeyId: settings.accessKeyId,
      secretAccessKey: settings.secretAccessKey,
      sessionToken: settings.sessionToken,
    });
  }

  private key(key: string): string {
    return this.settings.prefix + checkKey(key);
  }

  async putFile(key: string, path: string, meta: ObjectMeta = {}): Promise<void> {
    // Bun uploads a large file in parts (multipart) from disk: never all of it in memory.
    await this.client.write(this.key(key), Bun.file(path), { type: meta.contentType, contentDisposition: meta.contentDisposition });
  }

  async putText(key: string, text: string): Promise<void> {
    await this.client.write(this.key(key), text, { type: "application/json" });
  }

  async getText(key: string): Promise<string | undefined> {
    try {
      return await this.client.file(this.key(key)).text();
    } catch (err) {
      if (notFound(err)) return undefined;
      throw err;
    }
  }

  async download(key: string, path: string): Promise<boolean> {
    mkdirSync(dirname(path), { recursive: true });
    const partial = `${path}.partial`;
    try {
      // Streamed to disk; renamed into place whole, so an interrupted download is never taken for the file.
      await Bun.write(partial, this.client.file(this.key(key)));
    } catch (err) {
      rmSync(partial, { force: true });
      if (notFound(err)) return false;
      throw err;
    }
    renameSync(partial, path);
    return true;
  }

  async open(key: string): Promise<{ size: number; body: Blob } | undefined> {
    const file = this.client.file(this.key(key));
    try {
      const { size } = await file.stat();
      return { size, body: file };
    } catch (err) {
      if (notFound(err)) return undefined;
      throw err;
    }
  }

  exists(key: string): Promise<boolean> {
    return this.client.exists(this.key(key));
  }

  async delete(key: string): Promise<void> {
    await this.client.delete(this.key(key));
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (const key of await this.list(prefix)) await this.delete(key);
  }

  async list(prefix: string): Promise<string[]> {
    const keys: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await this.client.list({ prefix: this.key(prefix), continuationToken });
      for (const o of page.contents ?? []) keys.push(o.key.slice(this.settings.prefix.length));
      continuationToken = page.isTruncated ? page.nextContinuationToken : undefined;
    } while (continuationToken);
    return keys.sort();
  }

  presign(key: string, expiresInSeconds: number): string {
    return this.client.presign(this.key(key), { expiresIn: expiresInSeconds });
  }
}

import { S3Client, spawn, type Subprocess } from "bun";
import { existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "./process.ts";

const WEED = resolve(import.meta.dir, "../../.vendor/seaweedfs/bin/weed");
export const SEAWEEDFS_MISSING = existsSync(WEED) ? undefined : `no SeaweedFS at ${WEED}: run scripts/setup/seaweedfs.sh`;

export interface SeaweedFs {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The appliance settings that point at this server's bucket. */
  env(extra?: { prefix?: string; proxy?: boolean }): Record<string, string>;
  /** A client on the bucket, to look at what the appliance left there. */
  client: S3Client;
  /** Every key in the bucket under `prefix`. */
  keys(prefix?: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * A real SeaweedFS (`weed mini`, every service in one process) on free loopback ports, in a temporary
 * folder, with one identity and one bucket; ready when a signed listing of the bucket succeeds. The
 * process leads its own group, and stop() ends the group and removes the folder.
 */
export async function startSeaweedFs(opts: { bucket?: string } = {}): Promise<SeaweedFs> {
  if (SEAWEEDFS_MISSING) throw new Error(SEAWEEDFS_MISSING);
  const dir = mkdtempSync(join(tmpdir(), "clipyard-seaweedfs-"));
  const bucket = opts.bucket ?? "clipyard-test";
  const accessKeyId = "clipyardtest";
  const secretAccessKey = "clipyard-test-secret";
  writeFileSync(join(dir, "s3.json"), JSON.stringify({ identities: [{ name: "clipyard", credentials: [{ accessKey: accessKeyId, secretKey: secretAccessKey }], actions: ["Admin", "Read", "Write", "List", "Tagging"] }] }));
  // Every port named and free: weed's defaults (and its "port + 10000" gRPC ports) collide between runs.
  const ports = new Set<number>();
  while (ports.size < 10) ports.add(freePort());
  const [s3, s3g, m, mg, v, vg, f, fg, a, ag] = [...ports];
  const log = join(dir, "weed.log");
  mkdirSync(join(dir, "data"));
  const proc: Subprocess = spawn(
    [WEED, "mini", `-dir=${join(dir, "data")}`, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
      `-s3.port=${s3}`, `-s3.port.grpc=${s3g}`, `-master.port=${m}`, `-master.port.grpc=${mg}`, `-volume.port=${v}`, `-volume.port.grpc=${vg}`,
      `-filer.port=${f}`, `-filer.port.grpc=${fg}`, `-admin.port=${a}`, `-admin.port.grpc=${ag}`, "-admin.ui=false", "-webdav=false",
      "-s3.port.iceberg=0", "-s3.port.lance=0",
      // weed's unix sockets default to /tmp/seaweedfs-*-<port>.sock and outlive it: keep them in the folder stop() removes.
      `-s3.localSocket=${join(dir, "s3.sock")}`, `-filer.localSocket=${join(dir, "filer.sock")}`, `-s3.config=${join(dir, "s3.json")}`, `-bucket=${bucket}`],
    { detached: true, stdin: "ignore", stdout: "ignore", stderr: openSync(log, "a") },
  );
  const endpoint = `http://127.0.0.1:${s3}`;
  const client = new S3Client({ endpoint, bucket, region: "us-east-1", accessKeyId, secretAccessKey });
  const stop = async () => {
    try {
      process.kill(-proc.pid, "SIGTERM");
    } catch {}
    const gone = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
    if (!gone) {
      try {
        process.kill(-proc.pid, "SIGKILL");
      } catch {}
      await proc.exited;
    }
    rmSync(dir, { recursive: true, force: true });
    // weed may leave gRPC unix sockets in /tmp, named by port, whatever the flags say.
    for (const p of ports) for (const kind of ["s3", "filer", "master", "volume", "admin"]) rmSync(join(tmpdir(), `seaweedfs-${kind}-grpc-${p}.sock`), { force: true });
  };
  // A loaded 2-core machine can take many seconds to bring up five services.
  const deadline = Date.now() + 120_000;
  let last: unknown;
  for (;;) {
    if (proc.exitCode !== null) {
      const tail = readFileSync(log, "utf8").trim().split("\n").slice(-10).join("\n");
      await stop();
      throw new Error(`weed exited ${proc.exitCode}; its log ends:\n${tail}`);
    }
    try {
      await client.list({ maxKeys: 1 });
      break;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`SeaweedFS's S3 did not answer for bucket ${bucket} within 120 s: ${String(last)}`);
    }
    await Bun.sleep(100);
  }
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    client,
    env: (extra = {}) => ({
      CLIPYARD_STORAGE_URL: `s3://${bucket}${extra.prefix ? `/${extra.prefix}` : ""}?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
      AWS_ACCESS_KEY_ID: accessKeyId,
      AWS_SECRET_ACCESS_KEY: secretAccessKey,
      ...(extra.proxy ? { CLIPYARD_STORAGE_PROXY: "1" } : {}),
    }),
    async keys(prefix = "") {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.list({ prefix, continuationToken: token });
        out.push(...(page.contents ?? []).map((o) => o.key));
        token = page.isTruncated ? page.nextContinuationToken : undefined;
      } while (token);
      return out.sort();
    },
    stop,
  };
}

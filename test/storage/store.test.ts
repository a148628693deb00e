import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { LocalStore, S3Store, type ObjectStore } from "../../src/storage/index.ts";
import { startSeaweedFs, type SeaweedFs } from "../helpers/seaweedfs.ts";

let sw: SeaweedFs;
let work: string;
beforeAll(async () => {
  sw = await startSeaweedFs();
  work = mkdtempSync(join(tmpdir(), "clipyard-store-"));
}, 150_000);
afterAll(async () => {
  await sw?.stop();
  rmSync(work, { recursive: true, force: true });
});

const bytes = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) % 251);

/** The same contract, run against both implementations. */
function contract(name: string, make: () => ObjectStore) {
  describe(name, () => {
    test("write, read, range, list, delete", async () => {
      const store = make();
      const src = join(work, `${name}-src.bin`);
      const data = bytes(300_000);
      writeFileSync(src, data);
      await store.putFile("jobs/job_1/out/clip1_x.mp4", src, { contentType: "video/mp4" });
      await store.putText("jobs/job_1/resume/checkpoint.json", '{"done":["acquire"]}');
      expect(await store.exists("jobs/job_1/out/clip1_x.mp4")).toBe(true);
      expect(await store.exists("jobs/job_1/out/nope.mp4")).toBe(false);
      expect(await store.getText("jobs/job_1/resume/checkpoint.json")).toBe('{"done":["acquire"]}');
      expect(await store.getText("jobs/job_1/resume/missing.json")).toBeUndefined();

      const opened = (await store.open("jobs/job_1/out/clip1_x.mp4"))!;
      expect(opened.size).toBe(data.length);
      expect(new Uint8Array(await opened.body.slice(1000, 1100).arrayBuffer())).toEqual(data.slice(1000, 1100));
      expect(await store.open("jobs/job_1/out/nope.mp4")).toBeUndefined();

      const dest = join(work, `${name}-dest.bin`);
      expect(await store.download("jobs/job_1/out/clip1_x.mp4", dest)).toBe(true);
      expect(new Uint8Array(readFileSync(dest))).toEqual(data);
      expect(await store.download("jobs/job_1/out/nope.mp4", join(work, "never"))).toBe(false);

      expect(await store.list("jobs/job_1/")).toEqual(["jobs/job_1/out/clip1_x.mp4", "jobs/job_1/resume/checkpoint.json"]);
      await store.delete("jobs/job_1/out/clip1_x.mp4");
      expect(await store.exists("jobs/job_1/out/clip1_x.mp4")).toBe(false);
      await store.deletePrefix("jobs/job_1/");
      expect(await store.list("jobs/job_1/")).toEqual([]);
    });

    test("keys that climb out or carry odd characters are refused", async () => {
      const store = make();
      for (const key of ["../etc/passwd", "jobs/../../x", "/abs", "a//b", "a b"]) await expect(store.putText(key, "x")).rejects.toThrow(/bad object key/);
    });
  });
}

contract("local", () => new LocalStore(join(work, "data")));
contract("s3", () => new S3Store({ bucket: sw.bucket, prefix: "", endpoint: sw.endpoint, region: "us-east-1", accessKeyId: sw.accessKeyId, secretAccessKey: sw.secretAccessKey }));

describe("s3 specifics", () => {
  const store = () => new S3Store({ bucket: sw.bucket, prefix: "tenant/a/", endpoint: sw.endpoint, region: "us-east-1", accessKeyId: sw.accessKeyId, secretAccessKey: sw.secretAccessKey });

  test("path-style addressing: the bucket is in the URL's path, under the endpoint", () => {
    const url = new URL(store().presign("jobs/x/out/a.mp4", 60));
    expect(url.origin).toBe(sw.endpoint);
    expect(url.pathname).toBe(`/${sw.bucket}/tenant/a/jobs/x/out/a.mp4`);
  });

  test("a presigned URL downloads the object without credentials, a range of it too, for the lifetime it was signed for", async () => {
    const s = store();
    const src = join(work, "presign.bin");
    const data = bytes(50_000);
    writeFileSync(src, data);
    await s.putFile("jobs/x/out/a.mp4", src, { contentType: "video/mp4", contentDisposition: 'inline; filename="a.mp4"' });
    // The prefix keeps the appliance's keys apart from the bucket's other contents.
    expect(await sw.keys("tenant/")).toEqual(["tenant/a/jobs/x/out/a.mp4"]);
    const url = s.presign("jobs/x/out/a.mp4", 900);
    expect(new URL(url).searchParams.get("X-Amz-Expires")).toBe("900");
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-type")).toBe("video/mp4");
    expect(whole.headers.get("content-disposition")).toBe('inline; filename="a.mp4"');
    expect(new Uint8Array(await whole.arrayBuffer())).toEqual(data);
    const part = await fetch(url, { headers: { range: "bytes=100-199" } });
    expect(part.status).toBe(206);
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(data.slice(100, 200));
    const tampered = new URL(url);
    tampered.pathname = tampered.pathname.replace("a.mp4", "b.mp4");
    expect((await fetch(tampered)).status).toBe(403);
    await s.deletePrefix("jobs/");
  });

  test("wrong credentials fail loudly, not as a missing object", async () => {
    const bad = new S3Store({ bucket: sw.bucket, prefix: "", endpoint: sw.endpoint, region: "us-east-1", accessKeyId: "nobody", secretAccessKey: "wrong" });
    await expect(bad.getText("jobs/x/resume/checkpoint.json")).rejects.toThrow();
  });
});

describe("CLIPYARD_STORAGE_URL", () => {
  const load = (url: string, extra: Record<string, string> = {}) => loadConfig({ CLIPYARD_STORAGE_URL: url, ...extra });

  test("absent: no object storage, the data directory as before", () => {
    expect(loadConfig({}).storage).toBeUndefined();
  });

  test("bucket, prefix, endpoint, region and the AWS_* credentials", () => {
    const c = load("s3://clips/appliances/eu?endpoint=https://s3.example.com/&region=eu-west-1", { AWS_ACCESS_KEY_ID: "k", AWS_SECRET_ACCESS_KEY: "s", CLIPYARD_STORAGE_PROXY: "1" });
    expect(c.storage).toEqual({ bucket: "clips", prefix: "appliances/eu/", endpoint: "https://s3.example.com", region: "eu-west-1", accessKeyId: "k", secretAccessKey: "s", sessionToken: undefined, proxy: true });
    expect(load("s3://clips").storage).toMatchObject({ bucket: "clips", prefix: "", endpoint: undefined, region: "us-east-1", proxy: false });
  });

  test("a bad URL stops the start with a sentence naming the setting", () => {
    expect(() => load("https://clips.example.com")).toThrow("invalid configuration: CLIPYARD_STORAGE_URL: scheme https: is not supported");
    expect(() => load("s3://")).toThrow("invalid configuration: CLIPYARD_STORAGE_URL: the bucket is missing");
    expect(() => load("s3:///prefix")).toThrow("the bucket is missing");
    expect(() => load("s3://clips?endpoint=ftp://x")).toThrow("not an http(s) URL");
    expect(() => load("s3://clips?endpoint=nope")).toThrow("endpoint nope is not a URL");
    expect(() => load("s3://clips?bucket=x")).toThrow("unknown parameter bucket");
    expect(() => load("s3://key:secret@clips")).toThrow("credentials do not belong in the URL");
    expect(() => load("not a url")).toThrow("not a URL");
    expect(() => loadConfig({ CLIPYARD_STORAGE_PROXY: "1" })).toThrow("CLIPYARD_STORAGE_PROXY: only meaningful with CLIPYARD_STORAGE_URL");
  });
});

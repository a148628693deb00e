import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { jobCharges } from "../../src/db/schema.ts";
import { DecodedTooLongError, decodeToSpeechWav } from "../../src/media/decode-audio.ts";
import { probeMedia } from "../../src/media/probe.ts";
import { decodedLengthLimit } from "../../src/pipeline/decoded-length.ts";
import { transcribeFile } from "../../src/pipeline/transcribe/transcribe.ts";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { rawUpload, terminalJob } from "../helpers/uploads.ts";

/**
 * Issue 36 (5): the length cap was checked only on the duration a file's header claims. These files
 * are built for real with ffmpeg: a FLAC whose STREAMINFO claims seconds while its frames hold half
 * an hour, and a FLAC of silence that claims nothing at all. Decoding must stop at a small multiple
 * of the claim, or at the cap, and a job made from such a file must fail unbilled.
 */
const dir = mkdtempSync(join(tmpdir(), "decoded-length-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function ffmpegMake(args: string[], out: string): Promise<string> {
  const p = Bun.spawn(["ffmpeg", "-v", "error", "-y", ...args, out], { stderr: "pipe" });
  if ((await p.exited) !== 0) throw new Error(await new Response(p.stderr).text());
  return out;
}

/** Rewrites FLAC STREAMINFO's 36-bit total sample count, what ffprobe reports the duration from. */
function claimSamples(path: string, samples: number): void {
  const d = readFileSync(path);
  expect(d.subarray(0, 4).toString("latin1")).toBe("fLaC");
  const field = d.readBigUInt64BE(18);
  const mask = (1n << 36n) - 1n;
  d.writeBigUInt64BE((field & ~mask) | BigInt(samples), 18);
  writeFileSync(path, d);
}

let lying: string;
let unclaimed: string;
beforeAll(async () => {
  // 30 minutes of tone at 16 kHz that claims 10 s.
  lying = await ffmpegMake(["-f", "lavfi", "-i", "sine=f=440:sample_rate=16000", "-t", "1800", "-c:a", "flac"], join(dir, "lying.flac"));
  claimSamples(lying, 16000 * 10);
  // Two hours of silence (about 1.3 MB) whose header claims no length.
  unclaimed = await ffmpegMake(["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "7200", "-c:a", "flac"], join(dir, "unclaimed.flac"));
  claimSamples(unclaimed, 0);
}, 60_000);

test("the files really lie: the probe believes the header", async () => {
  expect((await probeMedia(lying)).durationSeconds).toBe(10);
  expect((await probeMedia(unclaimed)).durationSeconds).toBe(0);
  expect(statSync(unclaimed).size).toBeLessThan(2_000_000);
});

test("decoding a lying FLAC stops at twice its claim plus a minute, without writing the rest", async () => {
  const limit = decodedLengthLimit(10, 4 * 3600);
  expect(limit).toBe(80);
  const wav = join(dir, "lying.wav");
  const err = await decodeToSpeechWav(lying, wav, { maxSeconds: limit }).catch((e) => e);
  expect(err).toBeInstanceOf(DecodedTooLongError);
  expect(err.message).toContain("decodes to more than 80 s");
  // Neither the float intermediate nor the WAV is left; nothing near 30 minutes was written.
  expect(existsSync(`${wav}.f32`)).toBe(false);
  expect(existsSync(wav)).toBe(false);
});

test("a file that claims no length is stopped at the cap, counted in decoded samples", async () => {
  const err = await decodeToSpeechWav(unclaimed, join(dir, "unclaimed.wav"), { maxSeconds: decodedLengthLimit(0, 300) }).catch((e) => e);
  expect(err).toBeInstanceOf(DecodedTooLongError);
  expect(err.limitSeconds).toBe(300);
});

test("within the bounds the decoded length is measured, not claimed", async () => {
  const honest = await ffmpegMake(["-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "50", "-c:a", "flac"], join(dir, "fifty.flac"));
  claimSamples(honest, 16000 * 30);
  const wav = join(dir, "fifty.wav");
  const r = await decodeToSpeechWav(honest, wav, { maxSeconds: decodedLengthLimit(30, 4 * 3600) });
  expect(r.seconds).toBeCloseTo(50, 1);
  expect(statSync(wav).size).toBe(44 + 50 * 16000 * 2);
  const t = await transcribeFile(honest, { maxSeconds: 4 * 3600, diarize: false });
  expect(t.durationSeconds).toBeCloseTo(50, 1);
}, 120_000);

let app: TestAppliance;
test("a live job from a lying upload fails with media_fetch_failed and is not charged", async () => {
  app = await startAppliance({ env: { CLIPYARD_TIME_SCALE: "1" } });
  try {
    const key = app.key("decoded-length", "live");
    const upload = await rawUpload(app, key, Bun.file(lying), "?filename=episode.flac");
    expect(upload.status).toBe(201);
    const submitted = await app.api("POST", "/v1/jobs", { key, body: { source: { type: "upload", upload_id: upload.json.id } } });
    expect(submitted.status).toBe(202);
    const job = await terminalJob(app, key, submitted.json.id, 100_000);
    expect(job.status).toBe("failed");
    expect(job.error.code).toBe("media_fetch_failed");
    expect(job.error.message).toContain("far longer than the duration its header claims");
    const charge = app.ctx.db.select().from(jobCharges).where(eq(jobCharges.jobId, job.id)).get();
    expect(charge).toBeUndefined();
  } finally {
    await app.stop();
  }
}, 120_000);

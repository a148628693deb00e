/**
 * The compiled executable with no Python anywhere on PATH (issue #24): from an empty folder, voice
 * activity and diarization's neural models (CAM++, segmentation-3.0) run in-process, the whisper.cpp addon loads, `clipyard models pull` makes the ggml file
 * it runs (derived from the verified weights), and `clipyard process` completes on a real recording
 * with the default engine setting (auto: no speech runtime, so whisper.cpp), and so does a live job
 * through `serve`. ffmpeg is reached through a folder that holds only ffmpeg and ffprobe, because the
 * system's bin folder also holds python3.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuCannotRun, findBuiltAddon } from "../../src/inference/whisper-cpp-built.ts";
import { modelDir } from "../../src/models/store.ts";
import { startMediaServer } from "../helpers/media-server.ts";
import { SHARED_MEDIA } from "../helpers/paths.ts";
import { buildBinaryInto, pathWithoutPython } from "../helpers/parity.ts";
import { testShared } from "../helpers/shared.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-no-python-"));
const dir = join(work, "empty");
const models = join(work, "models");
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Whether build-binary.sh embeds the source-built whisper.cpp addon and this CPU runs it: then the executable's words carry probabilities. */
const builtAddon = findBuiltAddon();
const runsBuiltAddon = builtAddon.ok && !cpuCannotRun(builtAddon.info);

let PATH: string;
beforeAll(() => {
  buildBinaryInto(work, dir);
  // The verified models, linked: the derived ggml file is made in this folder, not in the checkout's.
  mkdirSync(models);
  for (const m of ["whisper-tiny.en", "silero-vad", "human-face", "all-minilm-l6-v2", "campplus-zh-en", "pyannote-segmentation-3.0"]) symlinkSync(modelDir(m), join(models, m), "dir");
  PATH = pathWithoutPython(work);
}, 120_000);

// The English tiny model, linked above (the default, whisper-base, would need its own ggml conversion here).
const env = () => ({ PATH, HOME: dir, CLIPYARD_MODELS_DIR: models, CLIPYARD_LOG_LEVEL: "error", CLIPYARD_ASR_MODEL: "whisper-tiny.en" });

function clipyard(args: string[]) {
  const p = Bun.spawnSync([join(dir, "clipyard"), ...args], { cwd: dir, env: env() });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

test("no python on PATH", () => {
  expect(Bun.which("python3", { PATH })).toBeNull();
  expect(Bun.which("python", { PATH })).toBeNull();
});

test("doctor: Silero and CAM++ run in-process and the whisper.cpp addon loads, with no speech runtime", () => {
  const checks = JSON.parse(clipyard(["doctor", "--json"]).out).checks as Array<{ name: string; status: string; data: any }>;
  const vad = checks.find((c) => c.name === "voice activity")!;
  expect(vad).toMatchObject({ status: "ok", data: { engine: "onnxruntime-node", ran: { windows: 31 } } });
  expect(checks.find((c) => c.name === "speaker embeddings")).toMatchObject({ status: "ok", data: { engine: "onnxruntime-node", model: "verified", ran: { embeddings: 1 } } });
  expect(checks.find((c) => c.name === "speech runtime")!.status).toBe("fail");
  expect(checks.find((c) => c.name === "speech recognition")).toMatchObject({ status: "ok", data: { engine: "whisper-cpp-in-process", reason: "no speech runtime installed: whisper.cpp in-process, no Python needed", inProcess: { available: true } } });
  // Which whisper.cpp addon, and why: the embedded source-built one wherever it was built and the CPU has its instructions.
  expect(checks.find((c) => c.name === "speech recognition")!.data.inProcess).toMatchObject(runsBuiltAddon ? { addon: "built", wordProbabilities: true } : { addon: "prebuilt", wordProbabilities: false });
}, 60_000);

test("models pull: the recognition model is verified and its ggml file converted and verified beside it", () => {
  const r = clipyard(["models", "pull", "whisper-tiny.en"]);
  expect(r.code).toBe(0);
  expect(r.out).toContain("whisper-tiny.en: verified in");
  expect(r.out).toContain("whisper-tiny.en-ggml-q8_0: converted from whisper-tiny.en and verified in");
  expect(existsSync(join(models, "whisper-tiny.en-ggml-q8_0", "ggml-tiny.en-q8_0.bin"))).toBe(true);
}, 120_000);

testShared("process: clips, notes and a transcript of the phone call, recognised in-process", () => {
  const out = join(dir, "out");
  const r = clipyard(["process", join(SHARED_MEDIA, "two_speakers_call.wav"), "--out", out, "--clips", "1", "--min-seconds", "5", "--max-seconds", "20"]);
  expect(r.err).toMatch(/done in [\d.]+ s: 1 clips/);
  expect(r.code).toBe(0);
  const job = JSON.parse(readFileSync(join(out, "job.json"), "utf8"));
  expect(job.clips).toHaveLength(1);
  for (const f of Object.values(job.clips[0].rendered_urls) as string[]) expect(existsSync(join(out, f))).toBe(true);
  const transcript = JSON.parse(readFileSync(join(out, "transcript.json"), "utf8"));
  // Without the speech runtime the neural speaker models still run, in-process, from the verified PyTorch checkpoints.
  expect(job.engine.asr).toBe("whisper.cpp whisper-tiny.en-ggml-q8_0 in-process + silero-vad v5 in-process + CAM++ speaker embeddings (campplus-zh-en) in-process + pyannote segmentation-3.0 speech and overlap in-process");
  expect(new Set(transcript.words.map((w: { speaker: string }) => w.speaker))).toEqual(new Set(["Speaker 1", "Speaker 2"]));
  expect(transcript.words.map((w: { word: string }) => w.word).join(" ")).toContain("This is Diane in New Jersey");
  // The source-built addon's token probabilities reach every word, as the CTranslate2 engine's do.
  const probabilities = transcript.words.map((w: { probability?: number }) => w.probability);
  if (runsBuiltAddon) for (const p of probabilities) expect(p).toBeWithin(0, 1.000001);
  else expect(probabilities.every((p: unknown) => p === undefined)).toBe(true);
  expect(existsSync(join(models, "whisper-tiny.en-ggml-q8_0", "ggml-tiny.en-q8_0.bin"))).toBe(true);
}, 900_000);

testShared("serve: a live job on the phone call completes, recognised in-process", async () => {
  const media = startMediaServer();
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const key = clipyard(["keys", "create", "--org", "studio", "--env", "live"]).out.trim();
  expect(key).toMatch(/\S{20,}/);
  const server = Bun.spawn([join(dir, "clipyard"), "serve"], {
    cwd: dir,
    env: { ...env(), CLIPYARD_PORT: String(port), CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1" },
    stdout: "ignore",
    stderr: "pipe",
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    const up = Date.now() + 120_000;
    while (!(await fetch(`${base}/healthz`).then((r) => r.ok, () => false))) {
      if (Date.now() > up) throw new Error("serve did not answer /healthz within 30 s");
      await Bun.sleep(100);
    }
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    const body = { source: { type: "video_url", url: media.url("two_speakers_call.wav") }, options: { clip_count: 1, min_clip_seconds: 6, max_clip_seconds: 20 } };
    const submitted = await fetch(`${base}/v1/jobs`, { method: "POST", headers, body: JSON.stringify(body) });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    // Bounds a hang, not the speed: whisper.cpp here has no AVX, and a loaded CI machine (load 20 on
    // two cores) ran past 240 s.
    const end = Date.now() + 840_000;
    let job: any;
    for (;;) {
      job = await (await fetch(`${base}/v1/jobs/${id}`, { headers })).json();
      if (job.status === "complete" || job.status === "failed" || Date.now() > end) break;
      await Bun.sleep(500);
    }
    expect(job.error).toBeNull();
    expect(job.status).toBe("complete");
    expect(job.output.clips.length).toBe(1);
    expect(job.output.transcript.map((s: { text: string }) => s.text).join(" ")).toContain("Diane in New Jersey");
  } finally {
    server.kill();
    await server.exited;
    media.stop();
  }
}, 900_000);

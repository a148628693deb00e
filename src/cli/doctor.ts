import { accessSync, constants, existsSync, readFileSync } from "node:fs";
import { diskSpace } from "../storage/disk-space.ts";
import { join } from "node:path";
import { loadConfig, type Config } from "../config.ts";
import { openDb, postgresOf } from "../db/client.ts";
import { detectEngine, encoderLabel } from "../media/ffmpeg-engine.ts";
import { ytdlpCommand, VENDORED_YTDLP } from "../media/youtube.ts";
import { verifyFile } from "../models/checksum.ts";
import { loadManifest } from "../models/manifest.ts";
import { capture } from "../run-command.ts";
import { describePackages, speechRuntimeStatus } from "../inference/speech-runtime/status.ts";
import { INSTALL_COMMAND } from "../inference/speech-runtime/runtime.ts";
import { cudaStatus } from "../inference/speech-runtime/worker.ts";
import { modelDir, resolveModel } from "../models/store.ts";
import { loadWhisperCpp } from "../inference/whisper-cpp.ts";
import { chooseAsrEngine } from "../pipeline/transcribe/asr-engine.ts";
import { chooseAsrModel } from "../pipeline/transcribe/asr-model.ts";
import { checkVadEngine } from "../pipeline/transcribe/vad-engine.ts";
import { SPEAKER_EMBEDDING_MODEL } from "../pipeline/transcribe/diarize.ts";
import { PIPELINE_OPTIONAL_MODELS } from "../pipeline/pipeline-models.ts";
import { setLogLevel } from "../log.ts";
import { checkSpeakerEngine } from "../pipeline/transcribe/speaker-engine.ts";

/** "optional": an extra that was never pulled (a bigger recogniser, a TTS voice), which is no fault. */
type Status = "ok" | "optional" | "warn" | "fail";


interface Check {
  name: string;
  status: Status;
  detail: string;
  data?: Record<string, unknown>;
}

async function run(cmd: string[], env?: Record<string, string>): Promise<{ code: number; out: string }> {
  const r = await capture(cmd, env);
  return { code: r.code, out: (r.stdout || r.stderr).trim() };
}

function cpuFeatures(): string[] {
  try {
    const flags = /^flags\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.split(/\s+/) ?? [];
    return ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512_vnni"].filter((f) => flags.includes(f));
  } catch {
    return [];
  }
}

async function checks(): Promise<Check[]> {
  const config = loadConfig();
  const out: Check[] = [];

  try {
    const e = await detectEngine();
    out.push({
      name: "ffmpeg",
      status: "ok",
      detail: `${e.kind} ${e.ffmpeg} (${e.version.split(" ").slice(0, 3).join(" ")}); encoder ${encoderLabel(e)}; hardware listed: ${e.listedHardware.join(", ") || "none"}, working: ${e.workingHardware.join(", ") || "none"}`,
      data: { ...e },
    });
  } catch (err) {
    out.push({ name: "ffmpeg", status: "fail", detail: (err as Error).message });
  }

  const cpu = cpuFeatures();
  const speech = await speechRuntimeStatus();
  const where = speech.pythonFromOverride ? `${speech.python} (CLIPYARD_SPEECH_PYTHON)` : speech.dir;
  out.push({
    name: "speech runtime",
    status: speech.state === "ready" ? "ok" : speech.state === "outdated" ? "warn" : "fail",
    detail:
      speech.state === "ready"
        ? `${describePackages(speech)}, Python ${speech.pythonVersion} in ${where}; CPU features: ${cpu.join(", ") || "none detected"}`
        : `${speech.state}: ${speech.problem} (run: ${speech.fix})`,
    data: { ...speech, cpuFeatures: cpu },
  });

  out.push(await vadCheck(speech.state === "ready"));
  out.push(await speakerCheck(speech.state === "ready"));
  out.push(recognitionCheck(speech.state !== "missing", speech.state === "ready"));
  out.push(recognitionModelCheck(config.modelsDir));

  const gpu = await run(["nvidia-smi", "--query-gpu=name,memory.total,driver_version", "--format=csv,noheader"]);
  out.push(gpu.code === 0 ? { name: "gpu", status: "ok", detail: gpu.out } : { name: "gpu", status: "ok", detail: "none (CPU only)" });
  out.push(await cudaCheck(speech.state, gpu.code === 0));

  for (const m of loadManifest()) {
    const dir = modelDir(m.name, config.modelsDir);
    const problems: string[] = [];
    for (const f of m.files) {
      const path = join(dir, f.file);
      if (!existsSync(path)) problems.push(`${f.file} missing`);
      else {
        const v = await verifyFile(path, f);
        if (!v.ok) problems.push(`${f.file}: ${v.reason}`);
      }
    }
    const neverPulled = problems.length === m.files.length && problems.every((p) => p.endsWith(" missing"));
    // A missing model the default pipeline uses costs quality (a warning); an extra never pulled costs nothing.
    if (m.optional && !(m.name in PIPELINE_OPTIONAL_MODELS) && neverPulled) {
      out.push({ name: `model ${m.name}`, status: "optional", detail: `optional, not pulled (clipyard models pull ${m.name})` });
      continue;
    }
    const status: Status = problems.length === 0 ? "ok" : m.optional ? "warn" : "fail";
    out.push({
      name: `model ${m.name}`,
      status,
      detail: problems.length
        ? `${problems.join("; ")} (run: clipyard models pull ${m.name})${PIPELINE_OPTIONAL_MODELS[m.name] ? `; without it: ${PIPELINE_OPTIONAL_MODELS[m.name]}` : ""}`
        : `checksum verified (${dir})`,
    });
  }

  const yt = await run([...ytdlpCommand(config.ytdlpPath), "--version"], { PYTHONPATH: VENDORED_YTDLP });
  out.push(yt.code === 0 ? { name: "yt-dlp", status: "ok", detail: yt.out } : { name: "yt-dlp", status: "warn", detail: "not installed: youtube_url jobs will fail with youtube_ingestion_failed" });

  out.push(databaseCheck(config));
  out.push(dataDirCheck(config));
  return out;
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(2)} GB`;

/**
 * The data disk's free space against the reserve the appliance keeps (uploads and new jobs are
 * refused with insufficient_storage below it): fail under the reserve, warn under twice it.
 */
export function dataDirCheck(config: Pick<Config, "dataDir" | "diskReserveBytes">): Check {
  const name = "data directory";
  try {
    accessSync(config.dataDir, constants.W_OK);
    const { free, total, reserve } = diskSpace(config.dataDir, config.diskReserveBytes);
    const source = config.diskReserveBytes === undefined ? "max(1 GiB, 5 % of the disk up to 10 GiB)" : "CLIPYARD_DISK_RESERVE_BYTES";
    const status: Status = free < reserve ? "fail" : free < 2 * reserve ? "warn" : "ok";
    const verdict = free < reserve ? "; under the reserve: uploads and new jobs are refused until space is freed" : free < 2 * reserve ? "; close to the reserve" : "";
    return {
      name,
      status,
      detail: `${config.dataDir}: ${gb(free)} free of ${gb(total)}; reserve ${gb(reserve)} (${source})${verdict}`,
      data: { path: config.dataDir, freeBytes: free, totalBytes: total, reserveBytes: reserve, reserveFrom: source },
    };
  } catch (err) {
    return { name, status: "fail", detail: `${config.dataDir}: ${(err as Error).message}` };
  }
}

/**
 * Whether recognition will run on a CUDA GPU, and why not: asked of the speech worker itself, so it
 * sees the same driver, devices and libraries a live job would. Without a GPU that is not a fault
 * (recognition runs int8 on the CPU); a GPU that recognition cannot use is a warning.
 */
async function cudaCheck(runtimeState: string, gpuPresent: boolean): Promise<Check> {
  const name = "cuda recognition";
  if (runtimeState !== "ready" && runtimeState !== "outdated") {
    return { name, status: gpuPresent ? "warn" : "ok", detail: "unknown: the speech runtime is not installed", data: { available: false, reason: "the speech runtime is not installed" } };
  }
  try {
    const c = await cudaStatus();
    if (c.usable) return { name, status: "ok", detail: `yes: ${c.devices} CUDA device(s), Whisper in float16`, data: { available: true, ...c } };
    return { name, status: gpuPresent ? "warn" : "ok", detail: `no, Whisper runs int8 on the CPU: ${c.reason}`, data: { available: false, ...c } };
  } catch (err) {
    return { name, status: "warn", detail: `unknown: ${(err as Error).message}`, data: { available: false, reason: (err as Error).message } };
  }
}

/** Which engine voice activity runs on, and why; the in-process one is proven by running the verified model. */
async function vadCheck(pythonReady: boolean): Promise<Check> {
  const name = "voice activity";
  let modelPath: string | undefined;
  try {
    modelPath = resolveModel("silero-vad");
  } catch {
    // reported by the model check below
  }
  const c = await checkVadEngine(modelPath);
  const data = { ...c };
  if (c.error) return { name, status: "fail", detail: c.error, data };
  if (c.engine === "onnxruntime-node") {
    const proof = c.ran ? `, Silero ran ${c.ran.windows} windows in ${c.ran.seconds.toFixed(2)} s` : "";
    return { name, status: "ok", detail: `in-process: ${c.reason}${proof}`, data };
  }
  return { name, status: pythonReady ? "ok" : "fail", detail: `Python speech worker: ${c.reason}${pythonReady ? "" : " (and the speech runtime is not installed)"}`, data };
}

/**
 * Which engine speaker embeddings (and the segmentation beside them) run on, and why. Diarization
 * degrades to MFCC clustering rather than failing a job, so only an engine that was asked for and
 * cannot load is a failure; the in-process one is proven by embedding a second of audio.
 */
async function speakerCheck(pythonReady: boolean): Promise<Check> {
  const name = "speaker embeddings";
  let modelPath: string | undefined;
  try {
    modelPath = resolveModel(SPEAKER_EMBEDDING_MODEL);
  } catch {
    // reported by the model check below
  }
  const c = await checkSpeakerEngine(modelPath);
  const data = { ...c, model: modelPath ? "verified" : "missing" };
  const noModel = modelPath ? "" : ` (model ${SPEAKER_EMBEDDING_MODEL} not verified: speaker labels come from MFCC clustering)`;
  if (c.error) return { name, status: c.fatal ? "fail" : "warn", detail: c.error, data };
  if (c.engine === "onnxruntime-node") {
    const proof = c.ran ? `, CAM++ embedded 1 s in ${c.ran.seconds.toFixed(2)} s` : "";
    return { name, status: "ok", detail: `in-process: ${c.reason}${proof}${noModel}`, data };
  }
  return { name, status: pythonReady ? "ok" : "warn", detail: `Python speech worker: ${c.reason}${pythonReady ? "" : " (and the speech runtime is not installed: speaker labels come from MFCC clustering)"}${noModel}`, data };
}

/**
 * Which recogniser a job will run and why (chooseAsrEngine, the job's own choice): CTranslate2 in the
 * Python worker when the runtime is installed, whisper.cpp in-process when it is not (or when
 * CLIPYARD_ASR_ENGINE says so), which hears nearly the same words at 2-3x the CPU time with the
 * source-built addon and 4-9x with the prebuilt one (docs/benchmarks/speed.md).
 */
function recognitionCheck(runtimeInstalled: boolean, pythonReady: boolean): Check {
  const name = "speech recognition";
  const cpp = loadWhisperCpp();
  const inProcess = cpp.ok ? { available: true, addon: cpp.kind, label: cpp.label, why: cpp.reason, wordProbabilities: cpp.probabilities } : { available: false, reason: cpp.reason };
  // Which whisper.cpp addon and why: the source-built one (AVX2, word probabilities) or the prebuilt fallback.
  const addon = cpp.ok ? `; addon: ${cpp.label}, because ${cpp.reason}${cpp.probabilities ? "" : " (its words carry no probabilities, so no least-sure warnings)"}` : "";
  const cpuCost = cpp.ok && cpp.probabilities ? "2-3x" : "4-9x";
  const model = chooseAsrModel().model;
  const { engine, reason } = chooseAsrEngine(model, process.env, { runtimeInstalled: () => runtimeInstalled, inProcess: () => cpp });
  if (engine === "whisper-cpp") {
    return cpp.ok
      ? { name, status: "ok", detail: `whisper.cpp in-process (${reason}): no Python needed, ${cpuCost} the CPU time of CTranslate2${addon}`, data: { engine: "whisper-cpp-in-process", reason, inProcess } }
      : { name, status: "fail", detail: `${reason} but ${cpp.reason}`, data: { engine: "whisper-cpp-in-process", reason, inProcess } };
  }
  const alternative = cpp.ok ? `loads here (runs when the speech runtime is absent, or with CLIPYARD_ASR_ENGINE=whisper-cpp, at ${cpuCost} the CPU time)${addon}` : `not available: ${cpp.reason}`;
  return {
    name,
    status: pythonReady ? "ok" : "fail",
    detail: `CTranslate2 (faster-whisper) in the Python speech worker (${reason})${pythonReady ? "" : `; install it with \`${INSTALL_COMMAND}\``}; in-process whisper.cpp ${alternative}`,
    data: { engine: "ctranslate2-python-worker", reason, inProcess },
  };
}

/** The Whisper model jobs use (chooseAsrModel) and why; fails when it is not pulled and verified. */
function recognitionModelCheck(modelsDir: string): Check {
  const { model, reason } = chooseAsrModel();
  try {
    resolveModel(model, modelsDir);
    return { name: "recognition model", status: "ok", detail: `${model}: ${reason}`, data: { model, reason } };
  } catch (err) {
    return { name: "recognition model", status: "fail", detail: `${model}: ${reason}; ${(err as Error).message}`, data: { model, reason } };
  }
}

/** `clipyard doctor [--json]`: what this machine will run, and what is missing. */
export default async function doctor(argv: string[]): Promise<number> {
  // The report is the output: the checks' own log lines (engine detection …) only when asked for
  // with CLIPYARD_LOG_LEVEL; warnings and errors still reach stderr.
  if (!process.env.CLIPYARD_LOG_LEVEL) setLogLevel("warn");
  const results = await checks();
  if (argv.includes("--json")) process.stdout.write(JSON.stringify({ checks: results }, null, 2) + "\n");
  else {
    const mark = { ok: "✔", optional: "·", warn: "!", fail: "✘" };
    for (const c of results) process.stdout.write(`${mark[c.status]} ${c.name.padEnd(24)} ${c.detail}\n`);
  }
  return results.some((c) => c.status === "fail") ? 1 : 0;
}

/** SQLite's own integrity check, or PostgreSQL reached, migrated and its server version. */
function databaseCheck(config: Config): Check {
  const where = config.databaseUrl ? `PostgreSQL at ${redactedUrl(config.databaseUrl)}` : "SQLite in the data directory";
  try {
    const db = openDb(config);
    try {
      const pg = postgresOf(db);
      if (pg) {
        const version = (db.$client.query("SHOW server_version").get() as { server_version: string }).server_version;
        return { name: "database", status: "ok", detail: `${where}: reachable, schema up to date (server ${version})` };
      }
      const integrity = (db.$client.query("PRAGMA quick_check").get() as { quick_check: string }).quick_check;
      return { name: "database", status: integrity === "ok" ? "ok" : "fail", detail: `${where}: ${integrity}` };
    } finally {
      db.$client.close();
    }
  } catch (err) {
    return { name: "database", status: "fail", detail: `${where}: ${(err as Error).message}` };
  }
}

/** The URL without its password: doctor's output is pasted into issues. */
function redactedUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}

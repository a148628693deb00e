/**
 * Which ffmpeg runs and which H.264 encoder it uses, decided once at start-up. Hardware encoders
 * are listed by many builds that cannot open them (no device, no driver), so each candidate must
 * pass a real tiny encode before it is chosen.
 */
import { existsSync } from "node:fs";
import { findNativeFfmpeg, runTool } from "./ffmpeg.ts";
import { coreVersion, runWasm, wasmCoreAvailable, WASM_CORE_PACKAGE } from "./ffmpeg-wasm.ts";
import { log } from "../log.ts";

export const HARDWARE_ENCODERS = ["h264_nvenc", "h264_vaapi", "h264_qsv", "h264_videotoolbox"] as const;
export type H264Encoder = (typeof HARDWARE_ENCODERS)[number] | "libx264";

export interface EngineInfo {
  kind: "native" | "wasm";
  /** libx264's speed against size and quality (CLIPYARD_X264_PRESET); hardware encoders ignore it. */
  x264Preset: X264Preset;
  /** Binary path for native; package@version for wasm. */
  ffmpeg: string;
  version: string;
  encoder: H264Encoder;
  /** Hardware encoders ffmpeg lists, and those that passed the probe encode. */
  listedHardware: string[];
  workingHardware: string[];
}

const VAAPI_DEVICE = "/dev/dri/renderD128";

/** libx264's presets, fastest first: each step slower gives a smaller file at the same CRF. */
export const X264_PRESETS = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow"] as const;
export type X264Preset = (typeof X264_PRESETS)[number];

export interface EncodeQuality {
  /** Constant-quality level on the x264 CRF scale (lower is better). */
  crf: number;
  preset: X264Preset;
}

export const DEFAULT_QUALITY: EncodeQuality = { crf: 21, preset: "veryfast" };

/**
 * The preset libx264 renders with: veryfast unless CLIPYARD_X264_PRESET names another. A slow machine
 * that renders many clips can trade file size for time (ultrafast: a quarter to a third less CPU per
 * render, files 2.5-3.5 times the size at the same CRF, docs/benchmarks/render.md); one with time to
 * spare can ask for smaller files (medium, slow).
 */
export function chooseX264Preset(wanted: string | undefined): X264Preset {
  if (!wanted) return DEFAULT_QUALITY.preset;
  if (!(X264_PRESETS as readonly string[]).includes(wanted)) throw new Error(`CLIPYARD_X264_PRESET must be one of ${X264_PRESETS.join(", ")} (got '${wanted}')`);
  return wanted as X264Preset;
}

/** The encoder renders use, with libx264's preset (a hardware encoder has none): "libx264 veryfast", "h264_nvenc". */
export function encoderLabel(e: Pick<EngineInfo, "encoder" | "x264Preset">): string {
  return e.encoder === "libx264" ? `libx264 ${e.x264Preset}` : e.encoder;
}

/** Encoder arguments plus the filter suffix some hardware encoders need to receive frames. */
export function videoEncoderArgs(encoder: H264Encoder, q: EncodeQuality = DEFAULT_QUALITY): { args: string[]; filterSuffix: string; inputArgs: string[] } {
  switch (encoder) {
    case "h264_nvenc":
      // Quality at a given size, as NVIDIA's guide suggests for offline encodes: the slower p5 preset
      // tuned for quality, constant-quality VBR with no bitrate target, 20 frames of rate-control
      // lookahead, spatial AQ (faces and captions against flat backgrounds), 3 B-frames, High
      // profile. Options that only newer GPUs take (temporal AQ, B-frame references) are left out:
      // the probe encode uses these same arguments, so one unsupported option would lose NVENC entirely.
      return {
        inputArgs: [],
        filterSuffix: ",format=yuv420p",
        args: ["-c:v", "h264_nvenc", "-preset", "p5", "-tune", "hq", "-rc", "vbr", "-cq", String(q.crf + 2), "-b:v", "0", "-rc-lookahead", "20", "-spatial-aq", "1", "-bf", "3", "-profile:v", "high"],
      };
    case "h264_vaapi":
      return { inputArgs: ["-vaapi_device", VAAPI_DEVICE], filterSuffix: ",format=nv12,hwupload", args: ["-c:v", "h264_vaapi", "-qp", String(q.crf + 2)] };
    case "h264_qsv":
      return { inputArgs: [], filterSuffix: ",format=nv12", args: ["-c:v", "h264_qsv", "-global_quality", String(q.crf + 2)] };
    case "h264_videotoolbox":
      return { inputArgs: [], filterSuffix: ",format=yuv420p", args: ["-c:v", "h264_videotoolbox", "-q:v", String(Math.max(1, 100 - q.crf * 2))] };
    case "libx264":
      return { inputArgs: [], filterSuffix: ",format=yuv420p", args: ["-c:v", "libx264", "-preset", q.preset, "-crf", String(q.crf), "-profile:v", "high"] };
  }
}

function probeArgs(encoder: H264Encoder): string[] {
  const e = videoEncoderArgs(encoder);
  return ["-loglevel", "error", ...e.inputArgs, "-f", "lavfi", "-i", "color=c=gray:s=256x256:r=10:d=0.5",
    "-vf", `null${e.filterSuffix}`, ...e.args, "-frames:v", "5", "-f", "null", "-"];
}

async function probeEncoder(ffmpegBin: string, encoder: H264Encoder): Promise<boolean> {
  if (encoder === "h264_vaapi" && !existsSync(VAAPI_DEVICE)) return false;
  const res = await runTool(ffmpegBin, ["-hide_banner", "-nostdin", ...probeArgs(encoder)], { allowFailure: true });
  return res.code === 0;
}

/**
 * The first hardware encoder that passed its probe, else libx264; CLIPYARD_VIDEO_ENCODER picks one
 * instead (libx264 to compare against a GPU's encoder, or a named hardware one that must have passed).
 */
export function chooseEncoder(wanted: string | undefined, workingHardware: string[]): H264Encoder {
  if (!wanted || wanted === "auto") return (workingHardware[0] as H264Encoder | undefined) ?? "libx264";
  if (wanted === "libx264") return "libx264";
  if (!(HARDWARE_ENCODERS as readonly string[]).includes(wanted)) {
    throw new Error(`CLIPYARD_VIDEO_ENCODER must be auto, libx264 or one of ${HARDWARE_ENCODERS.join(", ")} (got '${wanted}')`);
  }
  if (!workingHardware.includes(wanted)) {
    throw new Error(`CLIPYARD_VIDEO_ENCODER is ${wanted}, but it failed its probe encode here (working hardware encoders: ${workingHardware.join(", ") || "none"}); \`clipyard doctor\` shows what ffmpeg lists`);
  }
  return wanted as H264Encoder;
}

let cached: Promise<EngineInfo> | undefined;

/** Detects once per process; later calls share the result. */
export function detectEngine(): Promise<EngineInfo> {
  cached ??= detect();
  return cached;
}

/** No native binary: the embedded WebAssembly core, software x264 only (probe-encoded too). */
async function detectWasm(x264Preset: X264Preset): Promise<EngineInfo> {
  if (!wasmCoreAvailable()) {
    throw new Error(`no native ffmpeg (FFMPEG_PATH or PATH) and the embedded engine ${WASM_CORE_PACKAGE} is not installed`);
  }
  const res = await runWasm("ffmpeg", probeArgs("libx264"), { allowFailure: true });
  if (res.code !== 0) throw new Error(`the embedded WebAssembly ffmpeg failed its H.264 probe encode:\n${res.stderr.slice(-400)}`);
  const info: EngineInfo = {
    kind: "wasm", x264Preset, ffmpeg: `${WASM_CORE_PACKAGE}@${coreVersion()}`, version: "ffmpeg.wasm core", encoder: "libx264",
    listedHardware: [], workingHardware: [],
  };
  log.warn("no native ffmpeg: using the embedded WebAssembly engine (single-threaded, much slower)", { ...info });
  return info;
}

/** Test hook: forget the detected engine (e.g. after changing FFMPEG_PATH). */
export function resetEngineDetection(): void {
  cached = undefined;
}

async function detect(): Promise<EngineInfo> {
  // Read first: a preset libx264 does not have is refused before any probe encode runs.
  const x264Preset = chooseX264Preset(process.env.CLIPYARD_X264_PRESET);
  const native = findNativeFfmpeg();
  if (!native) return detectWasm(x264Preset);
  const version = (await runTool(native.ffmpeg, ["-hide_banner", "-version"])).stdout.split("\n")[0] ?? "";
  const encoders = (await runTool(native.ffmpeg, ["-hide_banner", "-encoders"])).stdout;
  const listedHardware = HARDWARE_ENCODERS.filter((e) => new RegExp(`\\s${e}\\s`).test(encoders));
  const workingHardware: string[] = [];
  for (const e of listedHardware) if (await probeEncoder(native.ffmpeg, e)) workingHardware.push(e);
  const encoder = chooseEncoder(process.env.CLIPYARD_VIDEO_ENCODER, workingHardware);
  if (encoder === "libx264" && !(await probeEncoder(native.ffmpeg, "libx264"))) {
    throw new Error(`ffmpeg at ${native.ffmpeg} cannot encode H.264 (no working hardware encoder and no libx264)`);
  }
  const info: EngineInfo = { kind: "native", ffmpeg: native.ffmpeg, version, encoder, x264Preset, listedHardware, workingHardware };
  log.info("ffmpeg engine detected", { ...info });
  return info;
}

/**
 * ONNX Runtime in this process (npm `onnxruntime-node`), loaded once and lazily, so a stage can run a
 * verified ONNX model without the Python speech runtime. Loading may fail (a platform the package has
 * no prebuilt addon for, a CPU or libc it cannot load on); callers then fall back to the Python worker
 * and report why, so nothing here throws past `loadOnnxRuntime`.
 */
import { dlopen } from "bun:ffi";
// Embedded in the compiled executable: the addon's own rpath ($ORIGIN) cannot find this library once
// Bun has extracted the addon to a temporary file, so it is loaded first, by path; the dynamic loader
// then satisfies the addon's DT_NEEDED libonnxruntime.so.1 with the copy already in the process.
import linuxX64Library from "onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1" with { type: "file" };
import ortPackage from "onnxruntime-node/package.json";

export type Ort = typeof import("onnxruntime-node");

export type OnnxRuntimeLoad = { ok: true; ort: Ort; version: string } | { ok: false; reason: string };

let loading: Promise<OnnxRuntimeLoad> | undefined;

export const ONNX_RUNTIME_VERSION: string = ortPackage.version;

export function loadOnnxRuntime(): Promise<OnnxRuntimeLoad> {
  loading ??= load();
  return loading;
}

async function load(): Promise<OnnxRuntimeLoad> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    // Only the linux-x64 library is embedded (see scripts/build-binary.sh); elsewhere the Python worker runs.
    return { ok: false, reason: `onnxruntime-node is embedded for linux-x64 only (this is ${process.platform}-${process.arch})` };
  }
  try {
    dlopen(linuxX64Library, { OrtGetApiBase: { args: [], returns: "ptr" } });
    const ort = await import("onnxruntime-node");
    return { ok: true, ort, version: ONNX_RUNTIME_VERSION };
  } catch (err) {
    return { ok: false, reason: `onnxruntime-node ${ONNX_RUNTIME_VERSION} did not load: ${(err as Error).message}` };
  }
}

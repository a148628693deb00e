/**
 * Face detection for speaker-following crops: @vladmandic/human's BlazeFace detector plus FaceMesh
 * landmarks (for mouth opening), run on TensorFlow.js's WebAssembly backend. The model files are
 * the manifest's "human-face" entry under config.modelsDir, used only once verified.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadConfig, ROOT_DIR } from "../config.ts";
import { resolveModel } from "./store.ts";

/** Name of the face models in models/manifest.json (files, sizes, official checksums, sources). */
export const FACE_MODEL = "human-face";

export interface DetectedFace {
  /** Box in pixels of the analysed frame: x, y, width, height. */
  box: [number, number, number, number];
  score: number;
  /** Inner-lip gap divided by face height; undefined when landmarks were not found. */
  mouthOpen?: number;
}

export interface FaceDetector {
  detect(rgb: Uint8Array, width: number, height: number): Promise<DetectedFace[]>;
}

/** The verified model folder; throws ModelNotAvailableError (naming the pull command) otherwise. */
export function verifyFaceModels(modelsDir = loadConfig().modelsDir): string {
  return resolveModel(FACE_MODEL, modelsDir);
}

let shared: Promise<FaceDetector> | undefined;

export function loadFaceDetector(modelsDir = loadConfig().modelsDir): Promise<FaceDetector> {
  shared ??= load(modelsDir).catch((e) => {
    shared = undefined;
    throw e;
  });
  return shared;
}

// FaceMesh landmark indices of the inner upper and lower lip (centre) and of forehead/chin.
const UPPER_LIP = 13;
const LOWER_LIP = 14;

async function load(modelsDir: string): Promise<FaceDetector> {
  // Verified files only: resolveModel throws (naming `clipyard models pull human-face`) otherwise.
  const dir = verifyFaceModels(modelsDir);
  // The node-wasm build takes tfjs-core/converter/backend-wasm from node_modules; the .wasm
  // binaries ship inside @tensorflow/tfjs-backend-wasm.
  // The package's "exports" map is not valid for subpaths, so the build is imported by file path.
  const entry = resolve(ROOT_DIR, "node_modules/@vladmandic/human/dist/human.node-wasm.js");
  const mod = (await import(entry)) as { Human: new (cfg: unknown) => HumanLike };
  const wasmDir = resolve(ROOT_DIR, "node_modules/@tensorflow/tfjs-backend-wasm/dist") + "/";
  const human = new mod.Human({
    backend: "wasm",
    wasmPath: pathToFileURL(wasmDir).href,
    modelBasePath: pathToFileURL(dir + "/").href,
    debug: false,
    cacheSensitivity: 0,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { modelPath: "blazeface.json", rotation: false, maxDetected: 6, minConfidence: 0.5, return: false },
      mesh: { enabled: true, modelPath: "facemesh.json" },
      iris: { enabled: false },
      emotion: { enabled: false },
      description: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
      attention: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: { enabled: false },
  });
  await human.load();
  return {
    async detect(rgb, width, height) {
      const tensor = human.tf.tensor4d(rgb, [1, height, width, 3], "int32");
      try {
        const res = await human.detect(tensor);
        return res.face.map((f) => {
          const m = f.mesh && f.mesh.length > LOWER_LIP ? f.mesh : undefined;
          // Human's box is padded for the mesh model's input; the landmarks' extent is the face itself.
          const box = m ? meshBox(m) : (f.box as [number, number, number, number]);
          const mouthOpen = m ? Math.abs(m[LOWER_LIP]![1] - m[UPPER_LIP]![1]) / (box[3] || 1) : undefined;
          return { box, score: f.score, mouthOpen };
        });
      } finally {
        tensor.dispose();
      }
    },
  };
}

function meshBox(mesh: number[][]): [number, number, number, number] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of mesh) {
    x0 = Math.min(x0, x!); y0 = Math.min(y0, y!); x1 = Math.max(x1, x!); y1 = Math.max(y1, y!);
  }
  return [x0, y0, x1 - x0, y1 - y0];
}

interface HumanLike {
  load(): Promise<void>;
  detect(input: unknown): Promise<{ face: { box: number[]; score: number; mesh?: number[][] }[] }>;
  tf: { tensor4d(data: Uint8Array, shape: number[], dtype: string): { dispose(): void } };
}

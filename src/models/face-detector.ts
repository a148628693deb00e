/**
 * Face detection for speaker-following crops: @vladmandic/human's BlazeFace detector plus FaceMesh
 * landmarks (for mouth opening), run on TensorFlow.js's WebAssembly backend. The model files are
 * read from config.modelsDir and used only when their bytes match the checksums below.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadConfig, ROOT_DIR } from "../config.ts";

/**
 * Manifest of the face models: files of the npm package @vladmandic/human@3.3.6 (tarball integrity
 * as published on the npm registry below), with the sha256 of each file taken from that tarball.
 */
export const FACE_MODELS = {
  package: "@vladmandic/human",
  version: "3.3.6",
  npmIntegrity: "sha512-Nr5mPfq1gQ+uKeXY5uM3Fj8UxvF5CEh2s6txM5wRThqaW0mF9huooOuZSrT8hhGho0hGaXLFdAwfD/2+teCv6A==",
  dir: "human-3.3.6",
  files: {
    "blazeface.json": "cd7bbfc078270572beb39f9e5ae67aadbd50b5e67cff37e6d4f6b3ea39312e5f",
    "blazeface.bin": "dc9a97fdc50bc43216554bdd69aa3e7b9361a519ee7bdd996a2f69a98a6f9b72",
    "facemesh.json": "b60ca26f404724f43bd2b1575761d8265180e1f053cc0731caa68462927309e7",
    "facemesh.bin": "3826da640b0a3021161605369ee6af293f75d518040355b960ec71a3390c1c0b",
  } as Record<string, string>,
} as const;

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

/** Throws a clear error when a model file is missing or its bytes differ from the manifest. */
export function verifyFaceModels(modelsDir: string): string {
  const dir = join(modelsDir, FACE_MODELS.dir);
  for (const [file, sha] of Object.entries(FACE_MODELS.files)) {
    const path = join(dir, file);
    if (!existsSync(path)) throw new Error(`face model ${path} is missing (run scripts/setup/render.sh)`);
    const got = createHash("sha256").update(readFileSync(path)).digest("hex");
    if (got !== sha) throw new Error(`face model ${path} has sha256 ${got}, expected ${sha}; refusing to load it`);
  }
  return dir;
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

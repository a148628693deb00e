/**
 * Face detection for speaker-following crops: @vladmandic/human's BlazeFace detector plus FaceMesh
 * landmarks (for mouth opening), run on TensorFlow.js's WebAssembly backend. The model files are
 * the manifest's "human-face" entry under config.modelsDir, used only once verified.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { loadConfig, ROOT_DIR } from "../config.ts";
import { resolveModel } from "../models/store.ts";

/** Name of the face models in models/manifest.json (files, sizes, official checksums, sources). */
export const FACE_MODEL = "human-face";

/** A square region of the analysed frame, in pixels: where FaceMesh reads one face from. */
export interface FaceRegion {
  cx: number;
  cy: number;
  side: number;
}

export interface DetectedFace {
  /** Box in pixels of the analysed frame: x, y, width, height (the landmarks' extent). */
  box: [number, number, number, number];
  /** FaceMesh's confidence that the region holds a face, 0..1. */
  score: number;
  /** Inner-lip gap divided by face height. */
  mouthOpen: number;
  /**
   * Where to read this face in a later frame: the region it was read from, re-centred on its
   * landmarks once they have moved off its centre (RECENTRE). As in Human's own video mode, faces
   * move little between samples, so the region's size carries over and only its centre follows.
   */
  next: FaceRegion;
}

export interface FaceDetector {
  /** BlazeFace: the faces in the frame, as the regions FaceMesh reads them from. */
  find(rgb: Uint8Array, width: number, height: number): Promise<FaceRegion[]>;
  /**
   * FaceMesh in the given regions (found, or carried from an earlier frame as DetectedFace.next):
   * a fraction of find's cost. A region FaceMesh finds no face in is left out.
   */
  read(rgb: Uint8Array, width: number, height: number, regions: FaceRegion[]): Promise<DetectedFace[]>;
  /** find, then read. */
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

// FaceMesh landmark indices of the inner upper and lower lip (centre).
const UPPER_LIP = 13;
const LOWER_LIP = 14;
/** FaceMesh's input side in pixels (its graph's input shape). */
const MESH_INPUT = 192;
/**
 * A followed region is re-centred on its face's landmarks only once they are this far (share of
 * its side) from its centre. FaceMesh's mouth reading shifts with the crop (5 px on a 120 px region
 * moved it by 15%), and the landmarks' centre itself moves as the jaw opens: re-centring on every
 * frame would turn both into mouth "motion" on a face that is not talking or not moving.
 */
const RECENTRE = 0.05;
/** Below this FaceMesh confidence a region holds no face (Human's default, used for detection too). */
const MIN_CONFIDENCE = 0.5;

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
      detector: { modelPath: "blazeface.json", rotation: false, maxDetected: 6, minConfidence: MIN_CONFIDENCE, return: false },
      // Loaded by Human, run by meshes() below: Human's pipeline would run it only on the boxes of
      // its own detector pass, and read() needs it on carried regions without one.
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
  const mesh = human.models.models["facemesh"];
  if (!mesh) throw new Error(`FaceMesh did not load from ${dir}/facemesh.json`);
  human.config.face.mesh.enabled = false;
  const { tf } = human;

  /** FaceMesh on every region at once (one batch): the faces it is sure of, in frame pixels. */
  async function meshes(image: TensorLike, width: number, height: number, regions: FaceRegion[]): Promise<DetectedFace[]> {
    if (regions.length === 0) return [];
    const boxes = regions.map((r) => [
      (r.cy - r.side / 2) / height, (r.cx - r.side / 2) / width,
      (r.cy + r.side / 2) / height, (r.cx + r.side / 2) / width,
    ]);
    const input = tf.tidy(() => tf.div(tf.image.cropAndResize(image, boxes, regions.map(() => 0), [MESH_INPUT, MESH_INPUT]), 255));
    const outputs = mesh!.execute(input) as TensorLike[];
    try {
      const flag = outputs.find((t) => t.shape[t.shape.length - 1] === 1)!;
      const points = outputs.find((t) => t.shape[t.shape.length - 1] === 1404)!;
      const [confidence, raw] = await Promise.all([flag.data(), points.data()]);
      const faces: DetectedFace[] = [];
      regions.forEach((r, i) => {
        if (confidence[i]! < MIN_CONFIDENCE) return;
        // Raw landmarks are pixels of the 192x192 crop; scale about its centre into the region.
        const k = r.side / MESH_INPUT;
        const at = (j: number): [number, number] => [
          r.cx + k * (raw[i * 1404 + j * 3]! - MESH_INPUT / 2),
          r.cy + k * (raw[i * 1404 + j * 3 + 1]! - MESH_INPUT / 2),
        ];
        let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
        for (let j = 0; j < 468; j++) {
          const [x, y] = at(j);
          x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
        }
        const box: [number, number, number, number] = [x0, y0, x1 - x0, y1 - y0];
        const mouthOpen = Math.abs(at(LOWER_LIP)[1] - at(UPPER_LIP)[1]) / (box[3] || 1);
        const [cx, cy] = [(x0 + x1) / 2, (y0 + y1) / 2];
        const moved = Math.hypot(cx - r.cx, cy - r.cy) > RECENTRE * r.side;
        faces.push({ box, score: confidence[i]!, mouthOpen, next: moved ? { cx, cy, side: r.side } : r });
      });
      return faces;
    } finally {
      tf.dispose([input, ...outputs]);
    }
  }

  /** Human's face boxes are BlazeFace's, enlarged 1.4x and squared: FaceMesh's input regions. */
  async function find(image: TensorLike, width: number, height: number): Promise<FaceRegion[]> {
    const res = await human.detect(image);
    // boxRaw is the unclamped box, normalised.
    return res.face.map(({ boxRaw: [x, y, w, h] }) => ({
      cx: (x + w / 2) * width,
      cy: (y + h / 2) * height,
      side: Math.max(w * width, h * height),
    }));
  }

  /** Runs fn on the frame as a float tensor, disposed after. */
  async function onFrame<T>(rgb: Uint8Array, width: number, height: number, fn: (image: TensorLike) => Promise<T>): Promise<T> {
    const image = tf.tensor4d(new Float32Array(rgb), [1, height, width, 3], "float32");
    try {
      return await fn(image);
    } finally {
      image.dispose();
    }
  }

  return {
    find: (rgb, width, height) => onFrame(rgb, width, height, (image) => find(image, width, height)),
    read: (rgb, width, height, regions) => onFrame(rgb, width, height, (image) => meshes(image, width, height, regions)),
    detect: (rgb, width, height) => onFrame(rgb, width, height, async (image) => meshes(image, width, height, await find(image, width, height))),
  };
}

interface TensorLike {
  shape: number[];
  data(): Promise<Float32Array>;
  dispose(): void;
}

interface HumanLike {
  load(): Promise<void>;
  detect(input: unknown): Promise<{ face: { boxRaw: [number, number, number, number]; score: number }[] }>;
  config: { face: { mesh: { enabled: boolean } } };
  models: { models: Record<string, { execute(input: unknown): unknown } | null> };
  tf: {
    tensor4d(data: Float32Array, shape: number[], dtype: string): TensorLike;
    tidy<T>(fn: () => T): T;
    div(a: unknown, b: number): TensorLike;
    image: { cropAndResize(image: unknown, boxes: number[][], indices: number[], size: [number, number]): unknown };
    dispose(t: unknown): void;
  };
}

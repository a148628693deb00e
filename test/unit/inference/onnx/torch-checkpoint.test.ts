/**
 * The torch-free checkpoint reader on the two verified checkpoints, held to the speech worker's
 * `load_state_dict` (Python's own pickle module): the same tensor names, shapes and values.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveModel } from "../../../../src/models/store.ts";
import { loadCheckpoint, loadStateDict, PickleObject } from "../../../../src/inference/onnx/torch-checkpoint.ts";
import { workerPython } from "../../../helpers/worker-python.ts";

const work = mkdtempSync(join(tmpdir(), "clipyard-torch-ckpt-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const campplus = () => resolveModel("campplus-zh-en");
const segmentation = () => resolveModel("pyannote-segmentation-3.0");

interface Summary {
  names: string[];
  shapes: number[][];
  /** Per tensor: its sum, and three elements (first, middle, last) of the flattened tensor. */
  sums: number[];
  picks: number[][];
}

function pythonSummary(path: string, key?: string): Summary {
  return workerPython<Summary>("torch_checkpoint", `
sd = w.load_state_dict(${JSON.stringify(path)})
${key ? `sd = sd[${JSON.stringify(key)}]` : ""}
names = [k for k, v in sd.items() if isinstance(v, np.ndarray)]
flat = [sd[k].reshape(-1) for k in names]
print(json.dumps({"names": names, "shapes": [list(sd[k].shape) for k in names],
  "sums": [float(f.astype(np.float64).sum()) for f in flat],
  "picks": [[float(f[0]), float(f[len(f) // 2]), float(f[-1])] for f in flat]}))
`);
}

function expectSame(path: string, key?: string) {
  const ref = pythonSummary(path, key);
  const sd = loadStateDict(path, key);
  expect([...sd.keys()]).toEqual(ref.names);
  ref.names.forEach((name, i) => {
    const t = sd.get(name)!;
    expect(t.shape).toEqual(ref.shapes[i]!);
    const f = Array.from(t.data as ArrayLike<number | bigint>, Number);
    expect([f[0], f[f.length >> 1], f[f.length - 1]]).toEqual(ref.picks[i]!);
    const sum = f.reduce((a, b) => a + b, 0);
    expect(Math.abs(sum - ref.sums[i]!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(ref.sums[i]!)));
  });
  return sd;
}

describe("PyTorch checkpoint reader", () => {
  test("CAM++: 937 tensors, every name, shape and sampled value as Python reads them", () => {
    const sd = expectSame(campplus());
    expect(sd.size).toBe(937);
    expect(sd.get("head.conv1.weight")!.shape).toEqual([32, 1, 3, 3]);
    expect(sd.get("xvector.dense.linear.weight")!.shape).toEqual([192, 1024, 1]);
    expect(sd.get("head.bn1.num_batches_tracked")!.dtype).toBe("int64");
  }, 60_000);

  test("segmentation-3.0: the state dict inside the Lightning checkpoint; its other classes stay inert placeholders", () => {
    const sd = expectSame(segmentation(), "state_dict");
    expect(sd.size).toBe(54);
    expect(sd.get("lstm.weight_ih_l0")!.shape).toEqual([512, 60]);
    const ck = loadCheckpoint(segmentation()) as Map<string, unknown>;
    const spec = (ck.get("pyannote.audio") as Map<string, unknown>).get("specifications");
    expect(spec).toBeInstanceOf(PickleObject);
    expect((spec as PickleObject).global).toBe("pyannote.audio.core.task.Specifications");
  }, 60_000);

  test("a deflated copy reads the same; a pickle naming os.system builds a placeholder and runs nothing", () => {
    const deflated = join(work, "deflated.bin");
    const marker = join(work, "ran");
    const evil = join(work, "evil.pt");
    workerPython("torch_checkpoint", `
import zipfile, pickle, os
src = zipfile.ZipFile(${JSON.stringify(segmentation())})
with zipfile.ZipFile(${JSON.stringify(deflated)}, "w", zipfile.ZIP_DEFLATED) as out:
    for i in src.infolist():
        out.writestr(i.filename, src.read(i.filename))
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + ${JSON.stringify(marker)},))
with zipfile.ZipFile(${JSON.stringify(evil)}, "w") as out:
    out.writestr("archive/data.pkl", pickle.dumps({"x": Evil()}, protocol=2))
print("null")
`);
    const a = loadStateDict(segmentation(), "state_dict");
    const b = loadStateDict(deflated, "state_dict");
    expect([...b.keys()]).toEqual([...a.keys()]);
    expect(Array.from(b.get("classifier.weight")!.data as Float32Array)).toEqual(Array.from(a.get("classifier.weight")!.data as Float32Array));
    const obj = loadCheckpoint(evil) as Map<string, unknown>;
    expect(obj.get("x")).toBeInstanceOf(PickleObject);
    expect((obj.get("x") as PickleObject).global).toMatch(/^(posix|os)\.system$/);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});

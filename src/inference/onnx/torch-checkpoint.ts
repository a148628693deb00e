/**
 * Reads a PyTorch checkpoint (torch.save's zip of a pickle and raw tensor storages) without torch or
 * Python, the same way the speech worker's `load_state_dict` does: the verified file itself is read,
 * so no converted copy (bytes no official checksum vouches for) is ever written.
 *
 * The pickle is interpreted, never executed: only torch._utils._rebuild_tensor_v2, the storage types
 * and collections.OrderedDict mean anything; every other class the file names becomes an inert
 * `PickleObject` holding its arguments.
 */
import { readFileSync } from "node:fs";
import { inflateRawSync } from "node:zlib";

export type TensorData = Float32Array | Float64Array | Int32Array | BigInt64Array | Uint16Array;

export interface Tensor {
  dtype: "float32" | "float64" | "int32" | "int64" | "float16";
  shape: number[];
  /** Contiguous, row-major (a copy: strided views in the file are gathered). */
  data: TensorData;
}

/** A class the checkpoint names that is not honoured: kept with what it was built from, never run. */
export class PickleObject {
  state?: unknown;
  constructor(readonly global: string, readonly args: unknown[]) {}
}

/** A pickled dict (its keys may be strings or numbers). */
export type PickleDict = Map<unknown, unknown>;

export function isTensor(v: unknown): v is Tensor {
  return typeof v === "object" && v !== null && "shape" in v && "data" in v && "dtype" in v;
}

// ---- zip ---------------------------------------------------------------------------------------

/** Entry name -> its bytes (stored entries are views of `file`; deflated ones are inflated). */
function zipEntries(file: Buffer, path: string): Map<string, Buffer> {
  let eocd = -1;
  for (let i = file.length - 22; i >= Math.max(0, file.length - 22 - 0xffff); i--) {
    if (file.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${path}: not a zip file (no end of central directory); only torch.save's zip format is read`);
  const count = file.readUInt16LE(eocd + 10);
  let off = file.readUInt32LE(eocd + 16);
  if (count === 0xffff || off === 0xffffffff) throw new Error(`${path}: zip64 archives are not read`);
  const out = new Map<string, Buffer>();
  for (let k = 0; k < count; k++) {
    if (file.readUInt32LE(off) !== 0x02014b50) throw new Error(`${path}: corrupt zip central directory`);
    const method = file.readUInt16LE(off + 10);
    const compressed = file.readUInt32LE(off + 20);
    const nameLen = file.readUInt16LE(off + 28);
    const extraLen = file.readUInt16LE(off + 30);
    const commentLen = file.readUInt16LE(off + 32);
    const local = file.readUInt32LE(off + 42);
    const name = file.toString("utf8", off + 46, off + 46 + nameLen);
    if (compressed === 0xffffffff || local === 0xffffffff) throw new Error(`${path}: zip64 entry ${name} is not read`);
    if (file.readUInt32LE(local) !== 0x04034b50) throw new Error(`${path}: corrupt zip local header for ${name}`);
    const start = local + 30 + file.readUInt16LE(local + 26) + file.readUInt16LE(local + 28);
    const raw = file.subarray(start, start + compressed);
    // torch.save stores entries uncompressed (both verified checkpoints do); a re-zipped file may deflate them.
    if (method === 0) out.set(name, raw);
    else if (method === 8) out.set(name, inflateRawSync(raw));
    else throw new Error(`${path}: zip entry ${name} uses compression method ${method}`);
    off += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

// ---- pickle ------------------------------------------------------------------------------------

const STORAGE_DTYPES: Record<string, Tensor["dtype"]> = {
  FloatStorage: "float32",
  DoubleStorage: "float64",
  IntStorage: "int32",
  LongStorage: "int64",
  HalfStorage: "float16",
};

type Global = { kind: "rebuild_tensor" } | { kind: "storage"; dtype: Tensor["dtype"] } | { kind: "ordered_dict" } | { kind: "opaque"; name: string };

function findGlobal(module: string, name: string): Global {
  if (module === "torch._utils" && name === "_rebuild_tensor_v2") return { kind: "rebuild_tensor" };
  if (module === "torch" && name in STORAGE_DTYPES) return { kind: "storage", dtype: STORAGE_DTYPES[name]! };
  if (module === "collections" && name === "OrderedDict") return { kind: "ordered_dict" };
  return { kind: "opaque", name: `${module}.${name}` };
}

function typedView(bytes: Buffer, dtype: Tensor["dtype"]): TensorData {
  // A copy: the file buffer's offsets need not be aligned for the element size, and it is little-endian
  // like every platform onnxruntime-node runs on.
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  switch (dtype) {
    case "float32":
      return new Float32Array(ab);
    case "float64":
      return new Float64Array(ab);
    case "int32":
      return new Int32Array(ab);
    case "int64":
      return new BigInt64Array(ab);
    case "float16":
      return new Uint16Array(ab);
  }
}

interface Storage {
  dtype: Tensor["dtype"];
  data: TensorData;
}

function rebuildTensor(args: unknown[]): Tensor {
  const [storage, offset, size, stride] = args as [Storage, number, number[], number[]];
  const shape = [...size];
  const n = shape.reduce((a, b) => a * b, 1);
  const src = storage.data;
  let contiguous = true;
  for (let d = shape.length - 1, step = 1; d >= 0; step *= shape[d]!, d--) if (shape[d]! > 1 && stride[d] !== step) contiguous = false;
  if (contiguous) return { dtype: storage.dtype, shape, data: src.slice(offset, offset + n) };
  const out = new (src.constructor as new (n: number) => TensorData)(n);
  const idx = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    let p = offset;
    for (let d = 0; d < shape.length; d++) p += idx[d]! * stride[d]!;
    (out as Float32Array)[i] = (src as Float32Array)[p]!;
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d]! < shape[d]!) break;
      idx[d] = 0;
    }
  }
  return { dtype: storage.dtype, shape, data: out };
}

function unpickle(bytes: Buffer, loadStorage: (key: string, dtype: Tensor["dtype"]) => Storage, path: string): unknown {
  const stack: unknown[] = [];
  const marks: number[] = [];
  const memo = new Map<number, unknown>();
  let pos = 0;
  const popMark = (): unknown[] => {
    const m = marks.pop();
    if (m === undefined) throw new Error(`${path}: pickle MARK missing`);
    return stack.splice(m);
  };
  const call = (fn: unknown, args: unknown[]): unknown => {
    const g = fn as Global;
    if (g?.kind === "rebuild_tensor") return rebuildTensor(args);
    if (g?.kind === "ordered_dict") return new Map();
    if (g?.kind === "opaque") return new PickleObject(g.name, args);
    throw new Error(`${path}: pickle calls something that is not a class it names`);
  };
  const setItems = (items: unknown[]) => {
    const d = stack[stack.length - 1];
    if (!(d instanceof Map)) {
      // Items set on a placeholder object are its state; they are kept, never interpreted.
      if (d instanceof PickleObject) return void (d.state = items);
      throw new Error(`${path}: pickle SETITEM on a non-dict`);
    }
    for (let i = 0; i + 1 < items.length; i += 2) d.set(items[i], items[i + 1]);
  };
  const str = (n: number) => {
    const s = bytes.toString("utf8", pos, pos + n);
    pos += n;
    return s;
  };
  const line = () => {
    const end = bytes.indexOf(0x0a, pos);
    const s = bytes.toString("latin1", pos, end);
    pos = end + 1;
    return s;
  };
  for (;;) {
    if (pos >= bytes.length) throw new Error(`${path}: pickle ended without STOP`);
    const op = bytes[pos++]!;
    switch (op) {
      case 0x80: // PROTO
        pos += 1;
        break;
      case 0x95: // FRAME
        pos += 8;
        break;
      case 0x2e: // STOP
        return stack.pop();
      case 0x28: // MARK
        marks.push(stack.length);
        break;
      case 0x7d: // EMPTY_DICT
        stack.push(new Map());
        break;
      case 0x5d: // EMPTY_LIST
        stack.push([]);
        break;
      case 0x29: // EMPTY_TUPLE
        stack.push([]);
        break;
      case 0x74: // TUPLE
        stack.push(popMark());
        break;
      case 0x85: // TUPLE1
        stack.push(stack.splice(-1));
        break;
      case 0x86: // TUPLE2
        stack.push(stack.splice(-2));
        break;
      case 0x87: // TUPLE3
        stack.push(stack.splice(-3));
        break;
      case 0x71: // BINPUT
        memo.set(bytes[pos++]!, stack[stack.length - 1]);
        break;
      case 0x72: // LONG_BINPUT
        memo.set(bytes.readUInt32LE(pos), stack[stack.length - 1]);
        pos += 4;
        break;
      case 0x94: // MEMOIZE
        memo.set(memo.size, stack[stack.length - 1]);
        break;
      case 0x68: // BINGET
        stack.push(memo.get(bytes[pos++]!));
        break;
      case 0x6a: // LONG_BINGET
        stack.push(memo.get(bytes.readUInt32LE(pos)));
        pos += 4;
        break;
      case 0x4a: // BININT
        stack.push(bytes.readInt32LE(pos));
        pos += 4;
        break;
      case 0x4b: // BININT1
        stack.push(bytes[pos++]!);
        break;
      case 0x4d: // BININT2
        stack.push(bytes.readUInt16LE(pos));
        pos += 2;
        break;
      case 0x8a: {
        // LONG1: little-endian two's complement of n bytes
        const n = bytes[pos++]!;
        let v = 0n;
        for (let i = n - 1; i >= 0; i--) v = (v << 8n) | BigInt(bytes[pos + i]!);
        if (n && bytes[pos + n - 1]! & 0x80) v -= 1n << BigInt(8 * n);
        pos += n;
        stack.push(Number(v));
        break;
      }
      case 0x47: // BINFLOAT (big-endian)
        stack.push(bytes.readDoubleBE(pos));
        pos += 8;
        break;
      case 0x58: // BINUNICODE
        pos += 4;
        stack.push(str(bytes.readUInt32LE(pos - 4)));
        break;
      case 0x8c: // SHORT_BINUNICODE
        pos += 1;
        stack.push(str(bytes[pos - 1]!));
        break;
      case 0x8d: // BINUNICODE8
        pos += 8;
        stack.push(str(Number(bytes.readBigUInt64LE(pos - 8))));
        break;
      case 0x55: // SHORT_BINSTRING
        pos += 1;
        stack.push(str(bytes[pos - 1]!));
        break;
      case 0x54: // BINSTRING
        pos += 4;
        stack.push(str(bytes.readInt32LE(pos - 4)));
        break;
      case 0x43: {
        // SHORT_BINBYTES
        const n = bytes[pos]!;
        pos += 1 + n;
        stack.push(Buffer.from(bytes.subarray(pos - n, pos)));
        break;
      }
      case 0x42: {
        // BINBYTES
        const n = bytes.readUInt32LE(pos);
        pos += 4 + n;
        stack.push(Buffer.from(bytes.subarray(pos - n, pos)));
        break;
      }
      case 0x4e: // NONE
        stack.push(null);
        break;
      case 0x88: // NEWTRUE
        stack.push(true);
        break;
      case 0x89: // NEWFALSE
        stack.push(false);
        break;
      case 0x63: {
        // GLOBAL "module\nname\n"
        const module = line();
        stack.push(findGlobal(module, line()));
        break;
      }
      case 0x93: {
        // STACK_GLOBAL
        const name = stack.pop() as string;
        stack.push(findGlobal(stack.pop() as string, name));
        break;
      }
      case 0x52: {
        // REDUCE
        const args = stack.pop() as unknown[];
        stack.push(call(stack.pop(), args));
        break;
      }
      case 0x81: {
        // NEWOBJ
        const args = stack.pop() as unknown[];
        stack.push(call(stack.pop(), args));
        break;
      }
      case 0x62: {
        // BUILD: state for a placeholder is kept; an OrderedDict's (torch's _metadata) is dropped.
        const state = stack.pop();
        const obj = stack[stack.length - 1];
        if (obj instanceof PickleObject) obj.state = state;
        break;
      }
      case 0x73: // SETITEM
        setItems(stack.splice(-2));
        break;
      case 0x75: // SETITEMS
        setItems(popMark());
        break;
      case 0x61: {
        // APPEND
        const v = stack.pop();
        (stack[stack.length - 1] as unknown[]).push(v);
        break;
      }
      case 0x65: {
        // APPENDS
        const items = popMark();
        (stack[stack.length - 1] as unknown[]).push(...items);
        break;
      }
      case 0x51: {
        // BINPERSID: ("storage", storage type, key, location, numel)
        const pid = stack.pop() as unknown[];
        const type = pid[1] as Global;
        if (pid[0] !== "storage" || type?.kind !== "storage") throw new Error(`${path}: unknown persistent id ${String(pid[0])}`);
        stack.push(loadStorage(String(pid[2]), type.dtype));
        break;
      }
      case 0x30: // POP
        stack.pop();
        break;
      case 0x31: // POP_MARK
        popMark();
        break;
      case 0x32: // DUP
        stack.push(stack[stack.length - 1]);
        break;
      default:
        throw new Error(`${path}: pickle opcode 0x${op.toString(16)} at byte ${pos - 1} is not read`);
    }
  }
}

/** The object torch.save wrote (for these checkpoints a state dict, or a dict holding one). */
export function loadCheckpoint(path: string): unknown {
  const entries = zipEntries(readFileSync(path), path);
  const pklName = [...entries.keys()].find((n) => n.endsWith("/data.pkl"));
  if (!pklName) throw new Error(`${path}: no data.pkl in the archive`);
  const prefix = pklName.slice(0, -"/data.pkl".length);
  return unpickle(entries.get(pklName)!, (key, dtype) => {
    const raw = entries.get(`${prefix}/data/${key}`);
    if (!raw) throw new Error(`${path}: tensor storage ${key} missing`);
    return { dtype, data: typedView(raw, dtype) };
  }, path);
}

/** Name -> tensor of a checkpoint's state dict (`key` when the dict sits inside the saved object). */
export function loadStateDict(path: string, key?: string): Map<string, Tensor> {
  let obj = loadCheckpoint(path);
  if (key !== undefined) obj = obj instanceof Map ? obj.get(key) : undefined;
  if (!(obj instanceof Map)) throw new Error(`${path}: no state dict${key ? ` under '${key}'` : ""}`);
  const out = new Map<string, Tensor>();
  for (const [k, v] of obj) if (typeof k === "string" && isTensor(v)) out.set(k, v);
  return out;
}

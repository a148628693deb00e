/**
 * Builds an ONNX model in memory (the protobuf bytes ONNX Runtime's InferenceSession.create accepts)
 * from weights read out of a verified checkpoint, so a network with no ONNX export runs in-process
 * without a converted model file ever touching the disk. Only the messages and fields a plain
 * inference graph needs are encoded (onnx.proto: ModelProto, GraphProto, NodeProto, AttributeProto,
 * TensorProto, ValueInfoProto).
 */

// ---- protobuf wire format ----------------------------------------------------------------------

class Writer {
  private parts: Uint8Array[] = [];
  private scratch: number[] = [];
  length = 0;

  private flush() {
    if (!this.scratch.length) return;
    this.parts.push(Uint8Array.from(this.scratch));
    this.length += this.scratch.length;
    this.scratch = [];
  }

  varint(v: number | bigint) {
    // Negative int64 values take ten bytes of two's complement.
    let x = BigInt.asUintN(64, BigInt(v));
    while (x >= 0x80n) {
      this.scratch.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    this.scratch.push(Number(x));
  }

  tag(field: number, wire: 0 | 1 | 2 | 5) {
    this.varint((field << 3) | wire);
  }

  bytes(field: number, b: Uint8Array) {
    this.tag(field, 2);
    this.varint(b.length);
    this.flush();
    this.parts.push(b);
    this.length += b.length;
  }

  string(field: number, s: string) {
    this.bytes(field, new TextEncoder().encode(s));
  }

  int(field: number, v: number | bigint) {
    this.tag(field, 0);
    this.varint(v);
  }

  float(field: number, v: number) {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    for (const x of b) this.scratch.push(x);
  }

  message(field: number, m: Writer) {
    this.bytes(field, m.finish());
  }

  finish(): Uint8Array {
    this.flush();
    if (this.parts.length === 1) return this.parts[0]!;
    const out = new Uint8Array(this.length);
    let off = 0;
    for (const p of this.parts) {
      out.set(p, off);
      off += p.length;
    }
    this.parts = [out];
    return out;
  }
}

// ---- graph -------------------------------------------------------------------------------------

const FLOAT = 1;
const UINT8 = 2;
const INT8 = 3;
const INT64 = 7;

/** ONNX Runtime's contrib operators (DynamicQuantizeMatMul, DynamicQuantizeLSTM), opset version 1. */
export const MS_DOMAIN = "com.microsoft";

export type AttrValue = number | number[] | string | { float: number } | { floats: number[] };

/** A dimension: a fixed size, or a name for one known only at run time. */
export type Dim = number | string;

export class OnnxGraph {
  private nodes: Writer[] = [];
  private initializers: Writer[] = [];
  private inputs: Writer[] = [];
  private outputs: Writer[] = [];
  private domains = new Set<string>();
  private count = 0;

  private valueInfo(name: string, dims: Dim[], elemType = FLOAT): Writer {
    const shape = new Writer();
    for (const d of dims) {
      const dim = new Writer();
      if (typeof d === "number") dim.int(1, d);
      else dim.string(2, d);
      shape.message(1, dim);
    }
    const tensorType = new Writer();
    tensorType.int(1, elemType);
    tensorType.message(2, shape);
    const type = new Writer();
    type.message(1, tensorType);
    const vi = new Writer();
    vi.string(1, name);
    vi.message(2, type);
    return vi;
  }

  input(name: string, dims: Dim[]): string {
    this.inputs.push(this.valueInfo(name, dims));
    return name;
  }

  output(name: string, dims: Dim[]): void {
    this.outputs.push(this.valueInfo(name, dims));
  }

  /** A constant tensor (float32 unless given int64, int8 or uint8 values); returns its name. */
  constant(data: Float32Array | BigInt64Array | Int8Array | Uint8Array | number[], dims: number[], name = `c${this.count++}`): string {
    const t = new Writer();
    for (const d of dims) t.int(1, d);
    const elemType = data instanceof BigInt64Array ? INT64 : data instanceof Int8Array ? INT8 : data instanceof Uint8Array ? UINT8 : FLOAT;
    t.int(2, elemType);
    t.string(8, name);
    const typed = Array.isArray(data) ? Float32Array.from(data) : data;
    t.bytes(9, new Uint8Array(typed.buffer, typed.byteOffset, typed.byteLength));
    this.initializers.push(t);
    return name;
  }

  ints(values: number[]): string {
    return this.constant(BigInt64Array.from(values.map(BigInt)), [values.length]);
  }

  /**
   * One node; returns the names of its outputs (one unless `outputs` says more). An input named ""
   * is an optional input left out; `domain` names an operator set other than ONNX's own.
   */
  op(type: string, inputs: string[], attrs: Record<string, AttrValue> = {}, outputs = 1, domain = ""): string[] {
    const n = new Writer();
    for (const i of inputs) n.string(1, i);
    const outs = Array.from({ length: outputs }, () => `t${this.count++}`);
    for (const o of outs) n.string(2, o);
    n.string(4, type);
    if (domain) {
      n.string(7, domain);
      this.domains.add(domain);
    }
    for (const [name, v] of Object.entries(attrs)) {
      const a = new Writer();
      a.string(1, name);
      if (typeof v === "number") {
        a.int(3, v);
        a.int(20, 2);
      } else if (typeof v === "string") {
        a.string(4, v);
        a.int(20, 3);
      } else if (Array.isArray(v)) {
        for (const x of v) a.int(8, x);
        a.int(20, 7);
      } else if ("float" in v) {
        a.float(2, v.float);
        a.int(20, 1);
      } else {
        for (const x of v.floats) a.float(7, x);
        a.int(20, 6);
      }
      n.message(5, a);
    }
    this.nodes.push(n);
    return outs;
  }

  /** Single-output shorthand for op(). */
  node(type: string, inputs: string[], attrs: Record<string, AttrValue> = {}, domain = ""): string {
    return this.op(type, inputs, attrs, 1, domain)[0]!;
  }

  /** Serialised ModelProto naming `result` (an existing value) as output `name`. */
  model(result: string, name: string, dims: Dim[], opset = 17): Uint8Array {
    // Intermediate values have generated names; an Identity gives the result the caller's name.
    const rename = new Writer();
    rename.string(1, result);
    rename.string(2, name);
    rename.string(4, "Identity");
    this.nodes.push(rename);
    this.output(name, dims);
    const g = new Writer();
    for (const n of this.nodes) g.message(1, n);
    g.string(2, "clipyard");
    for (const t of this.initializers) g.message(5, t);
    for (const i of this.inputs) g.message(11, i);
    for (const o of this.outputs) g.message(12, o);
    const opsetId = new Writer();
    opsetId.string(1, "");
    opsetId.int(2, opset);
    const m = new Writer();
    m.int(1, 8); // IR version 8 (ONNX 1.13+), which opset 17 needs
    m.string(2, "clipyard");
    m.message(7, g);
    m.message(8, opsetId);
    for (const domain of this.domains) {
      const extra = new Writer();
      extra.string(1, domain);
      extra.int(2, 1);
      m.message(8, extra);
    }
    return m.finish();
  }
}

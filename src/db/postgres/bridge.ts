import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { COMPILED } from "../../config.ts";

export type BridgeRequest = { kind: "query"; text: string; params?: unknown[] } | { kind: "close" };
export type BridgeReply =
  | { ok: true; rows: unknown[][]; fields: string[]; count: number }
  | { ok: false; message: string; code?: string; detail?: string };

/** A statement PostgreSQL refused, with its SQLSTATE (23505 unique violation, 40P01 deadlock, …). */
export class PostgresError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
    readonly detail: string | undefined,
  ) {
    super(message);
    this.name = "PostgresError";
  }
}

/**
 * The connection thread's entry. The executable embeds it as a second entry point
 * (scripts/build-binary.sh), under its path below src/ and bundled to .js, beside the one bundle all
 * other modules share.
 */
const WORKER_ENTRY = COMPILED ? new URL("./db/postgres/bridge-worker.js", import.meta.url) : new URL("./bridge-worker.ts", import.meta.url);

/** Longer than the server-side statement_timeout (30 s), so the server's clearer error wins. */
const ANSWER_TIMEOUT_MS = 45_000;

/**
 * Synchronous queries over one PostgreSQL connection. The stores are synchronous by design (a
 * transaction is a plain function, as bun:sqlite's are: nothing else runs on this thread between
 * its check and its write), so PostgreSQL is reached the way synckit reaches async code: a worker
 * thread owns the connection, and this thread blocks on an Atomics.wait until it answers. A round
 * trip on loopback costs about 0.25 ms (docs/scale-out.md); the event loop is blocked for it, as it
 * is for a SQLite statement.
 */
export class PgBridge {
  private worker!: Worker;
  private port!: MessagePort;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly schema?: string,
  ) {
    this.spawn();
  }

  private spawn(): void {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(WORKER_ENTRY, {
      workerData: { url: this.url, schema: this.schema, state: this.flag.buffer, port: port2 },
      transferList: [port2],
    });
    // The connection thread must not keep a finished CLI command alive.
    this.worker.unref();
  }

  query(text: string, params?: unknown[]): { rows: unknown[][]; fields: string[]; count: number } {
    if (this.closed) throw new Error("the PostgreSQL connection is closed");
    const reply = this.call({ kind: "query", text, params });
    if (!reply.ok) throw new PostgresError(reply.message, reply.code, reply.detail);
    return reply;
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call({ kind: "close" });
    } finally {
      this.closed = true;
      void this.worker.terminate();
    }
  }

  private call(req: BridgeRequest): BridgeReply {
    Atomics.store(this.flag, 0, 0);
    this.port.postMessage(req);
    const deadline = Date.now() + ANSWER_TIMEOUT_MS;
    for (;;) {
      const waited = Atomics.wait(this.flag, 0, 0, Math.max(1, deadline - Date.now()));
      const msg = receiveMessageOnPort(this.port);
      if (msg) return msg.message as BridgeReply;
      // Woken without a message (the flag raced a previous answer): wait again until the deadline.
      if (waited === "timed-out" || Date.now() >= deadline) {
        // A late answer would be read as the next request's: drop this connection (the server rolls
        // back whatever it had open) and start a new one for the next request.
        void this.worker.terminate();
        this.spawn();
        throw new Error(`PostgreSQL did not answer within ${ANSWER_TIMEOUT_MS / 1000} s`);
      }
    }
  }
}

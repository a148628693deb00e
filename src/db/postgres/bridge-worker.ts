/**
 * The PostgreSQL connection behind PgBridge, on its own thread. The main thread posts one request
 * and blocks on `state` until this thread answers; only one request is ever in flight, so the
 * connection needs no pool and a transaction's statements all run on it, in order.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import pg from "pg";
import type { BridgeReply, BridgeRequest } from "./bridge.ts";

// Times, sequences, counts and money are BIGINT/NUMERIC on the server and plain integers in the
// application (all well below 2^53), as SQLite hands them back.
pg.types.setTypeParser(20, Number); // int8
pg.types.setTypeParser(1700, Number); // numeric (sum over BIGINT)

const { url, schema, state, port } = workerData as { url: string; schema?: string; state: SharedArrayBuffer; port: MessagePort };
const flag = new Int32Array(state);

function answer(reply: BridgeReply): void {
  port.postMessage(reply);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

let client: pg.Client | undefined;
let ready: Promise<void> | undefined;

/** A connection, made on first use and again after the server dropped the last one (a restart, a failover). */
function connection(): Promise<void> {
  if (!ready) {
    const c = new pg.Client({ connectionString: url, application_name: "clipyard" });
    c.on("error", () => {
      if (client === c) ready = undefined;
    });
    client = c;
    ready = connect(c).catch((err) => {
      ready = undefined;
      throw err;
    });
  }
  return ready;
}

async function connect(client: pg.Client): Promise<void> {
  await client.connect();
  // Bound how long one statement may hold the blocked main thread (a lock wait behind a stuck
  // transaction, a runaway query): the statement fails with a clear error instead.
  await client.query("SET statement_timeout = '30s'");
  if (schema) {
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } catch (err) {
      // Nodes starting together race on IF NOT EXISTS (a unique violation in pg_namespace, or
      // "already exists"): the schema is there either way.
      if (!["23505", "42P06"].includes((err as { code?: string }).code ?? "")) throw err;
    }
    await client.query(`SET search_path TO "${schema}"`);
  }
}

port.on("message", async (req: BridgeRequest) => {
  try {
    if (req.kind === "close") {
      await client?.end().catch(() => {});
      answer({ ok: true, rows: [], fields: [], count: 0 });
      return;
    }
    await connection();
    const c = client!;
    const res = req.params ? await c.query({ text: req.text, values: req.params, rowMode: "array" }) : await c.query({ text: req.text, rowMode: "array" });
    // A multi-statement text (migrations, BEGIN; lock) answers with one result per statement.
    const last = Array.isArray(res) ? res[res.length - 1] : res;
    answer({ ok: true, rows: last?.rows ?? [], fields: (last?.fields ?? []).map((f: { name: string }) => f.name), count: last?.rowCount ?? 0 });
  } catch (err) {
    const e = err as { message?: string; code?: string; detail?: string };
    answer({ ok: false, message: e.message ?? String(err), code: e.code, detail: e.detail });
  }
});

parentPort?.postMessage("started");

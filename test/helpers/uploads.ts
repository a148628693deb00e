import type { TestAppliance } from "./appliance.ts";

/** Raw tus 1.0 requests (what any tus client sends), against the appliance's /v1/uploads. */
export function tusClient(app: TestAppliance, key: string) {
  const base = { authorization: `Bearer ${key}`, "tus-resumable": "1.0.0" };
  return {
    async create(length: number, metadata: Record<string, string> = {}) {
      const meta = Object.entries(metadata).map(([k, v]) => `${k} ${Buffer.from(v).toString("base64")}`).join(",");
      return fetch(`${app.baseUrl}/v1/uploads`, { method: "POST", headers: { ...base, "upload-length": String(length), ...(meta ? { "upload-metadata": meta } : {}) } });
    },
    patch(url: string, offset: number, chunk: Uint8Array) {
      return fetch(url, { method: "PATCH", headers: { ...base, "upload-offset": String(offset), "content-type": "application/offset+octet-stream" }, body: new Uint8Array(chunk) });
    },
    head(url: string) {
      return fetch(url, { method: "HEAD", headers: base });
    },
    delete(url: string) {
      return fetch(url, { method: "DELETE", headers: base });
    },
  };
}

/** A whole file as the body of POST /v1/uploads, the way `curl --data-binary @file` sends it. */
export async function rawUpload(app: TestAppliance, key: string, body: BodyInit, query = "") {
  const res = await fetch(`${app.baseUrl}/v1/uploads${query}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/octet-stream" }, body });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

/** Polls a job until it is terminal. */
export async function terminalJob(app: TestAppliance, key: string, id: string, timeoutMs: number) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const job = (await app.api("GET", `/v1/jobs/${id}`, { key })).json;
    if (job.status === "complete" || job.status === "failed") return job;
    if (Date.now() > end) throw new Error(`job not terminal in time: ${JSON.stringify(job)}`);
    await Bun.sleep(50);
  }
}

/**
 * One HTTP/1.1 request written byte for byte over TCP: fetch and URL normalise the request target
 * (dot segments, fragments), which is exactly what an attacker does not have to do.
 */
export async function rawRequest(
  app: TestAppliance,
  method: string,
  target: string,
  headers: Record<string, string>,
  body: Uint8Array = new Uint8Array(),
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { connect } = await import("node:net");
  const lines = Object.entries({ host: "127.0.0.1", ...headers, ...(body.byteLength ? { "content-length": String(body.byteLength) } : {}), connection: "close" });
  const head = `${method} ${target} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join("")}\r\n`;
  const port = Number(new URL(app.baseUrl).port);
  // Done once the head and Content-Length bytes are in (a HEAD answer has no body whatever it declares).
  const complete = (out: string) => {
    const end = out.indexOf("\r\n\r\n");
    if (end < 0) return false;
    const length = method === "HEAD" ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(out.slice(0, end))?.[1] ?? 0);
    return Buffer.byteLength(out.slice(end + 4)) >= length;
  };
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(Buffer.concat([Buffer.from(head), body])));
    let out = "";
    socket.on("data", (d) => {
      out += d;
      if (complete(out)) {
        socket.destroy();
        resolve(out);
      }
    });
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
  });
  const split = text.indexOf("\r\n\r\n");
  const [statusLine, ...rest] = text.slice(0, split).split("\r\n");
  const parsed = Object.fromEntries(rest.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
  return { status: Number(statusLine!.split(" ")[1]), headers: parsed, body: text.slice(split + 4) };
}

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

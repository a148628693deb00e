import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { JobListSchema, JobSchema, type Job } from "../../src/jobs/schema.ts";
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { speechWav } from "../helpers/speech.ts";
import { cleanEnv, freePort, MAIN, REPO_ROOT, startAppliance, type Appliance } from "./appliance.ts";

/** A folder of test recordings (generated speech) that local_file is allowed to read. */
const MEDIA = dirname(speechWav());

type ToolCall = { isError?: boolean; content: Array<{ type: string; text?: string }>; structuredContent?: Record<string, unknown> };

async function connect(env: Record<string, string>): Promise<{ client: Client; protocolErrors: Error[]; stderr: () => string }> {
  const transport = new StdioClientTransport({ command: "bun", args: ["run", MAIN, "mcp"], cwd: REPO_ROOT, env, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: "clipyard-test", version: "0.0.0" });
  // Anything on the server's stdout that is not a protocol message surfaces here.
  const protocolErrors: Error[] = [];
  client.onerror = (err) => protocolErrors.push(err);
  await client.connect(transport);
  return { client, protocolErrors, stderr: () => stderr };
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<ToolCall> {
  return (await client.callTool({ name, arguments: args })) as ToolCall;
}

/** A tool call that worked; when it did not, the assertion shows the tool's error text (a 507 under the disk reserve, a 401). */
function succeeded(result: ToolCall) {
  const text = result.content.map((c) => c.text ?? "").join("\n");
  expect({ isError: result.isError ?? false, error: result.isError ? text : null }).toEqual({ isError: false, error: null });
}

function apiError(result: ToolCall) {
  expect(result.isError).toBe(true);
  const err = (result.structuredContent as { error: { type: string; code: string; message: string; param: string | null; request_id: string | null } }).error;
  // The text content carries the same facts for hosts that ignore structuredContent.
  const text = result.content.map((c) => c.text ?? "").join("\n");
  expect(text).toContain(err.code);
  expect(text).toContain(err.message);
  return err;
}

describe("clipyard mcp against a real appliance", () => {
  let appliance: Appliance;
  let session: Awaited<ReturnType<typeof connect>>;
  let key: string;

  beforeAll(async () => {
    appliance = await startAppliance();
    key = await appliance.createKey("mcp-test");
    // The folders local_file may read: the test recordings and a scratch "home" (tmp holds the data directory too).
    session = await connect(
      cleanEnv({ SERVICE_API_KEY: key, CLIPYARD_API_URL: appliance.baseUrl, CLIPYARD_DATA_DIR: appliance.env.CLIPYARD_DATA_DIR!, CLIPYARD_LOCAL_FILE_DIRS: `${MEDIA}:${tmpdir()}` }),
    );
  }, 30_000);

  afterAll(async () => {
    await session?.client.close();
    await appliance?.stop();
  });

  test("lists exactly the three tools with schemas and annotations", async () => {
    const { tools } = await session.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(["get_job", "list_jobs", "submit_job"]);
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    for (const t of tools) {
      expect(t.description?.length ?? 0).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe("object");
      expect(t.outputSchema?.type).toBe("object");
    }
    expect(Object.keys(byName.submit_job!.inputSchema.properties ?? {}).sort()).toEqual(["idempotency_key", "options", "source"]);
    expect(byName.submit_job!.inputSchema.required).toEqual(["source"]);
    expect(byName.get_job!.inputSchema.required).toEqual(["id"]);
    expect(Object.keys(byName.list_jobs!.inputSchema.properties ?? {}).sort()).toEqual(["limit", "starting_after"]);
    // The success branch of each output schema is the API's own resource schema.
    const outputBranches = (name: string) => (byName[name]!.outputSchema as unknown as { anyOf: Array<{ properties: Record<string, unknown> }> }).anyOf;
    expect(Object.keys(outputBranches("get_job")[0]!.properties)).toContain("output");
    expect(Object.keys(outputBranches("list_jobs")[0]!.properties).sort()).toEqual(["data", "has_more", "object"]);
    expect(Object.keys(outputBranches("submit_job")[1]!.properties)).toEqual(["error"]);

    expect(byName.get_job!.annotations?.readOnlyHint).toBe(true);
    expect(byName.list_jobs!.annotations?.readOnlyHint).toBe(true);
    expect(byName.submit_job!.annotations?.readOnlyHint).toBe(false);
    expect(byName.submit_job!.annotations?.idempotentHint).toBe(false);
    expect(byName.submit_job!.annotations?.destructiveHint).toBe(false);
  });

  test("submit_job, then get_job polls the sandbox job to complete, and list_jobs includes it", async () => {
    const submitted = await call(session.client, "submit_job", {
      source: { type: "video_url", url: "https://media.example.com/episode-12.mp4" },
      options: { include_trailer: true },
    });
    succeeded(submitted);
    const queued = JobSchema.parse(submitted.structuredContent);
    expect(queued.id).toStartWith("job_");
    expect(queued.status).toBe("queued");
    expect(queued.livemode).toBe(false);
    expect(JSON.parse(submitted.content[0]!.text!)).toEqual(submitted.structuredContent!);

    let job: Job = queued;
    const deadline = Date.now() + 90_000;
    while (job.status !== "complete" && job.status !== "failed" && Date.now() < deadline) {
      await Bun.sleep(250);
      const got = await call(session.client, "get_job", { id: queued.id });
      succeeded(got);
      job = JobSchema.parse(got.structuredContent);
    }
    // A failed job here names its cause (e.g. missing sandbox fixtures) in the assertion message.
    expect({ status: job.status, error: job.error }).toEqual({ status: "complete", error: null });
    expect(job.output?.clips).toHaveLength(3);
    expect(job.output?.trailer).not.toBeNull();
    expect(job.output?.guest_share_url).toContain("/share/");

    const listed = await call(session.client, "list_jobs", { limit: 5 });
    succeeded(listed);
    const list = JobListSchema.parse(listed.structuredContent);
    expect(list.object).toBe("list");
    expect(list.data.map((j) => j.id)).toContain(queued.id);
  }, 120_000);

  test("submit_job with a local_file path uploads the file; the sandbox job completes; a retry with its key replays", async () => {
    const path = speechWav();
    const args = { source: { type: "local_file", path }, idempotency_key: "local-file-key-1" };
    const submitted = await call(session.client, "submit_job", args);
    succeeded(submitted);
    const queued = JobSchema.parse(submitted.structuredContent);
    expect(queued.source.type).toBe("upload");
    expect(queued.source.upload_id).toStartWith("upl_");
    const upload = await fetch(`${appliance.baseUrl}/v1/uploads/${queued.source.upload_id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(await upload.json()).toMatchObject({ status: "complete", size: statSync(path).size, filename: "speech.wav" });

    let job: Job = queued;
    const deadline = Date.now() + 90_000;
    while (job.status !== "complete" && job.status !== "failed" && Date.now() < deadline) {
      await Bun.sleep(250);
      job = JobSchema.parse((await call(session.client, "get_job", { id: queued.id })).structuredContent);
    }
    expect({ status: job.status, error: job.error }).toEqual({ status: "complete", error: null });
    expect(job.output?.timeline_url).toContain("/share/");
    // The same file under the same key names the same upload, so the API replays the job.
    const again = JobSchema.parse((await call(session.client, "submit_job", args)).structuredContent);
    expect(again.id).toBe(queued.id);
  }, 120_000);

  test("a local_file path that is relative, missing or a folder is invalid_parameter on source.path", async () => {
    for (const path of ["episode.mp3", "/no/such/episode.mp3", MEDIA]) {
      const err = apiError(await call(session.client, "submit_job", { source: { type: "local_file", path } }));
      expect(err).toMatchObject({ code: "invalid_parameter", param: "source.path", request_id: null });
    }
    const noPath = apiError(await call(session.client, "submit_job", { source: { type: "local_file" } }));
    expect(noPath).toMatchObject({ code: "invalid_parameter", param: "source.path" });
  });

  test("local_file reads only media in the allowed folders: never secrets, the data directory, dot-folders or other files", async () => {
    const dataDir = appliance.env.CLIPYARD_DATA_DIR!;
    const home = mkdtempSync(join(tmpdir(), "mcp-home-"));
    try {
      // Media the probe accepts, but in places local_file must not read.
      mkdirSync(join(home, ".ssh"));
      copyFileSync(speechWav(), join(home, ".ssh", "episode.wav"));
      mkdirSync(join(dataDir, "sources"), { recursive: true });
      copyFileSync(speechWav(), join(dataDir, "sources", "other-org.wav"));
      symlinkSync(join(dataDir, "sources", "other-org.wav"), join(home, "innocent.wav"));
      symlinkSync(dataDir, join(home, "data-link"));
      writeFileSync(join(home, "notes.wav"), "a text file named like media");
      const uploadsBefore = readdirSync(join(dataDir, "uploads")).length;
      const refused: Array<[string, RegExp]> = [
        ["/etc/shadow", /outside the folders|no readable file/],
        ["/proc/self/environ", /outside the folders/],
        [join(dataDir, "secrets", "master.key"), /data directory|no readable file/],
        [join(dataDir, "sources", "other-org.wav"), /data directory/],
        [join(home, "innocent.wav"), /data directory/],
        [join(home, "data-link", "sources", "other-org.wav"), /data directory/],
        [`${MEDIA}${"/..".repeat(MEDIA.split("/").length - 1)}/etc/passwd`, /outside the folders/],
        [join(home, ".ssh", "episode.wav"), /hidden \(dot\) folder/],
        [join(home, "notes.wav"), /not audio or video in an accepted container/],
      ];
      for (const [path, why] of refused) {
        const err = apiError(await call(session.client, "submit_job", { source: { type: "local_file", path } }));
        expect({ path, code: err.code, param: err.param }).toEqual({ path, code: "invalid_parameter", param: "source.path" });
        expect(err.message).toMatch(why);
      }
      expect(readdirSync(join(dataDir, "uploads")).length).toBe(uploadsBefore);
      // A real media file in an allowed folder, reached through `..`, is still accepted.
      copyFileSync(speechWav(), join(home, "mine.wav"));
      const ok = await call(session.client, "submit_job", { source: { type: "local_file", path: `${home}/../${basename(home)}/mine.wav` } });
      succeeded(ok);
      const job = JobSchema.parse(ok.structuredContent);
      const upload = await fetch(`${appliance.baseUrl}/v1/uploads/${job.source.upload_id}`, { headers: { authorization: `Bearer ${key}` } });
      expect(await upload.json()).toMatchObject({ status: "complete", size: statSync(speechWav()).size, filename: "mine.wav" });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 120_000);

  test("list_jobs pages with limit and starting_after", async () => {
    for (const n of [1, 2]) {
      const r = await call(session.client, "submit_job", { source: { type: "video_url", url: `https://media.example.com/page-${n}.mp4` } });
      succeeded(r);
    }
    const first = JobListSchema.parse((await call(session.client, "list_jobs", { limit: 1 })).structuredContent);
    expect(first.data).toHaveLength(1);
    expect(first.has_more).toBe(true);
    const second = JobListSchema.parse((await call(session.client, "list_jobs", { limit: 1, starting_after: first.data[0]!.id })).structuredContent);
    expect(second.data).toHaveLength(1);
    expect(second.data[0]!.id).not.toBe(first.data[0]!.id);
  });

  test("a malformed source URL is a tool error with the API's invalid_source_url envelope", async () => {
    const result = await call(session.client, "submit_job", { source: { type: "video_url", url: "not a url" } });
    const err = apiError(result);
    expect(err.code).toBe("invalid_source_url");
    expect(err.type).toBe("invalid_request_error");
    expect(err.param).toBe("source.url");
    expect(err.request_id).toStartWith("req_");
  });

  test("an unknown job id is a not_found tool error", async () => {
    const err = apiError(await call(session.client, "get_job", { id: "job_doesnotexist0000000000" }));
    expect(err.code).toBe("not_found");
    expect(err.request_id).toStartWith("req_");
  });

  test("an idempotency key replays the original job; reused with another body it is an idempotency error", async () => {
    const body = { source: { type: "video_url", url: "https://media.example.com/idem.mp4" }, idempotency_key: `mcp-idem-${Date.now()}` };
    const a = JobSchema.parse((await call(session.client, "submit_job", body)).structuredContent);
    const b = JobSchema.parse((await call(session.client, "submit_job", body)).structuredContent);
    expect(b.id).toBe(a.id);
    const clash = await call(session.client, "submit_job", { ...body, source: { type: "video_url", url: "https://media.example.com/other.mp4" } });
    expect(apiError(clash).code).toBe("idempotency_key_reused_with_different_body");
  });

  test("out-of-range list_jobs arguments are an invalid_parameter tool error naming the argument", async () => {
    const err = apiError(await call(session.client, "list_jobs", { limit: 500 }));
    expect(err.code).toBe("invalid_parameter");
    expect(err.param).toBe("limit");
  });

  test("a key the API does not know is an authentication tool error", async () => {
    const bad = await connect(cleanEnv({ SERVICE_API_KEY: "svc_test_notarealkey000000000000000000", CLIPYARD_API_URL: appliance.baseUrl }));
    try {
      const err = apiError(await call(bad.client, "list_jobs", {}));
      expect(err.type).toBe("authentication_error");
      expect(err.code).toBe("invalid_api_key");
    } finally {
      await bad.client.close();
    }
  });

  test("stdout carried nothing but protocol messages; logs went to stderr", () => {
    expect(session.protocolErrors).toEqual([]);
    expect(session.stderr()).toContain('"msg":"mcp tool call"');
  });
});

describe("clipyard mcp configuration", () => {
  test("without SERVICE_API_KEY it exits non-zero with a clear message on stderr and nothing on stdout", async () => {
    const p = Bun.spawn(["bun", "run", MAIN, "mcp"], { cwd: REPO_ROOT, env: cleanEnv(), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(code).not.toBe(0);
    expect(out).toBe("");
    expect(err).toContain("SERVICE_API_KEY is not set");
  });

  test("a CLIPYARD_API_URL that is not an http(s) URL is a startup error", async () => {
    const p = Bun.spawn(["bun", "run", MAIN, "mcp"], {
      cwd: REPO_ROOT,
      env: cleanEnv({ SERVICE_API_KEY: "svc_test_x", CLIPYARD_API_URL: "ftp://appliance.lan" }),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    expect(code).toBe(2);
    expect(out).toBe("");
    expect(err).toContain("CLIPYARD_API_URL must be http(s)");
  });

  test("an unreachable API is an api_unreachable tool error, not a crash", async () => {
    const port = await freePort();
    const session = await connect(cleanEnv({ SERVICE_API_KEY: "svc_test_unreachable", CLIPYARD_API_URL: `http://127.0.0.1:${port}` }));
    try {
      const err = apiError(await call(session.client, "list_jobs", {}));
      expect(err.code).toBe("api_unreachable");
      expect(err.message).toContain(`127.0.0.1:${port}`);
      expect(err.request_id).toBeNull();
    } finally {
      await session.client.close();
    }
  });

  test("a URL that is not a clipyard API (HTML, or JSON of another shape) is an unexpected_response tool error", async () => {
    // A real HTTP server standing in for a wrong CLIPYARD_API_URL (a router page, another service).
    const other = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: (req) =>
        new URL(req.url).pathname === "/v1/jobs"
          ? new Response("<html>router login</html>", { status: 200, headers: { "content-type": "text/html" } })
          : Response.json({ id: 42 }, { headers: { "x-request-id": "other-req" } }),
    });
    const session = await connect(cleanEnv({ SERVICE_API_KEY: "svc_test_x", CLIPYARD_API_URL: `http://127.0.0.1:${other.port}` }));
    try {
      const html = apiError(await call(session.client, "list_jobs", {}));
      expect(html.code).toBe("unexpected_response");
      expect(html.message).toContain("not JSON");
      const wrongShape = apiError(await call(session.client, "get_job", { id: "job_x" }));
      expect(wrongShape.code).toBe("unexpected_response");
      expect(wrongShape.request_id).toBe("other-req");
    } finally {
      await session.client.close();
      other.stop(true);
    }
  });

  test("the server exits when the host closes stdin", async () => {
    const p = Bun.spawn(["bun", "run", MAIN, "mcp"], {
      cwd: REPO_ROOT,
      env: cleanEnv({ SERVICE_API_KEY: "svc_test_x", CLIPYARD_API_URL: "http://127.0.0.1:9" }),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } } };
    p.stdin.write(JSON.stringify(init) + "\n");
    await p.stdin.flush();
    const reader = p.stdout.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(first.split("\n")[0]!)).toMatchObject({ id: 1, result: { serverInfo: { name: "clipyard" } } });
    reader.releaseLock();
    p.stdin.end();
    // Bounds a hang (a server that ignores EOF never exits), not the speed: a loaded machine may take seconds.
    const code = await Promise.race([p.exited, Bun.sleep(60_000).then(() => "still running")]);
    if (code === "still running") p.kill();
    expect(code).toBe(0);
  });
});

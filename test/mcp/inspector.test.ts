import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { JobListSchema } from "../../src/jobs/schema.ts";
import { cleanEnv, MAIN, REPO_ROOT, startAppliance, type Appliance } from "./appliance.ts";

/**
 * The official MCP Inspector (devDependency, CLI mode, run by Node through npx) talking to
 * `clipyard mcp`: an independent client implementation checks the server speaks the protocol.
 */
describe("MCP Inspector CLI against clipyard mcp", () => {
  let appliance: Appliance;
  let key: string;
  let jobId: string;

  beforeAll(async () => {
    appliance = await startAppliance();
    key = await appliance.createKey("mcp-inspector");
    const res = await fetch(`${appliance.baseUrl}/v1/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ source: { type: "video_url", url: "https://media.example.com/inspector.mp4" } }),
    });
    expect(res.status).toBe(202);
    jobId = ((await res.json()) as { id: string }).id;
  }, 30_000);

  afterAll(async () => {
    await appliance?.stop();
  });

  async function inspector(...method: string[]): Promise<unknown> {
    // `--no` keeps npx offline: it must find the locally installed inspector.
    const argv = ["npx", "--no", "--", "@modelcontextprotocol/inspector", "--cli",
      "-e", `SERVICE_API_KEY=${key}`, "-e", `CLIPYARD_API_URL=${appliance.baseUrl}`,
      "bun", "run", MAIN, "mcp", ...method];
    const p = Bun.spawn(argv, { cwd: REPO_ROOT, env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    if (code !== 0) throw new Error(`inspector exited ${code}\nstdout: ${out}\nstderr: ${err}`);
    return JSON.parse(out);
  }

  test("tools/list names exactly submit_job, get_job, list_jobs", async () => {
    const result = (await inspector("--method", "tools/list")) as { tools: Array<{ name: string; inputSchema: { type: string }; annotations?: { readOnlyHint?: boolean } }> };
    expect(result.tools.map((t) => t.name).sort()).toEqual(["get_job", "list_jobs", "submit_job"]);
    for (const t of result.tools) expect(t.inputSchema.type).toBe("object");
    expect(result.tools.find((t) => t.name === "list_jobs")?.annotations?.readOnlyHint).toBe(true);
  }, 60_000);

  test("tools/call list_jobs returns the API's List envelope", async () => {
    const result = (await inspector("--method", "tools/call", "--tool-name", "list_jobs", "--tool-arg", "limit=5")) as {
      isError?: boolean;
      content?: Array<{ text?: string }>;
      structuredContent: unknown;
    };
    // On failure the assertion shows the tool's error text, not a bare `true`.
    expect({ isError: result.isError ?? false, error: result.isError ? result.content?.map((c) => c.text).join("\n") : null }).toEqual({ isError: false, error: null });
    const list = JobListSchema.parse(result.structuredContent);
    expect(list.object).toBe("list");
    expect(list.data.map((j) => j.id)).toEqual([jobId]);
    expect(list.has_more).toBe(false);
  }, 60_000);
});

import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import pkg from "../../package.json" with { type: "json" };
import { log } from "../log.ts";
import type { ApiClient } from "./api-client.ts";
import { describeTool, toolResult, TOOLS } from "./tools.ts";

const INSTRUCTIONS =
  "clipyard turns a podcast or video episode into ranked, captioned short clips, a trailer, show notes, a guest share page and a transcript. " +
  "Call submit_job with a public HTTPS MP4 (video_url), a video-site URL (youtube_url) or, for a file on this machine, a local_file path, then poll get_job until status is complete or failed. " +
  "Errors carry a code to branch on (spec error table), e.g. invalid_source_url or not_found.";

/**
 * The MCP server: three tools over the jobs API. Built on the SDK's low-level Server (not McpServer)
 * because McpServer only accepts object output schemas, and tool errors here carry the API's error
 * envelope as structuredContent, which hosts validate against the declared outputSchema.
 */
export function createMcpServer(client: ApiClient): Server {
  const server = new Server({ name: "clipyard", title: "clipyard", version: pkg.version }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const listed = TOOLS.map(describeTool);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${request.params.name}; tools are ${TOOLS.map((t) => t.name).join(", ")}.`);
    const started = performance.now();
    const result = await tool.run(client, request.params.arguments ?? {});
    log.info("mcp tool call", {
      tool: tool.name,
      ok: result.ok,
      ...(result.ok ? {} : { code: result.error.code, request_id: result.error.request_id }),
      ms: Math.round(performance.now() - started),
    });
    return toolResult(result);
  });

  return server;
}

/** Serves MCP on stdin/stdout until the host closes stdin. stdout carries protocol messages only. */
export async function serveStdio(client: ApiClient): Promise<void> {
  const server = createMcpServer(client);
  const transport = new StdioServerTransport();
  server.onerror = (err) => log.error("mcp protocol error", { error: err.message });
  await server.connect(transport);
  // The transport does not notice the host hanging up; end with it instead of lingering.
  process.stdin.once("end", () => void server.close());
  server.onclose = () => process.exit(0);
  log.info("clipyard mcp ready", { api: client.baseUrl, tools: TOOLS.map((t) => t.name) });
}

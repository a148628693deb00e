import { loadConfig } from "../config.ts";
import { log, setLogLevel } from "../log.ts";
import { createApiClient } from "../mcp/api-client.ts";
import { serveStdio } from "../mcp/server.ts";

const USAGE = `usage: clipyard mcp

Runs the MCP server on stdio (tools submit_job, get_job, list_jobs) for an MCP host.

environment:
  SERVICE_API_KEY    required: an API key (svc_test_... or svc_live_...) from \`clipyard keys create\`
  CLIPYARD_API_URL   base URL of the clipyard API (default http://<CLIPYARD_HOST>:<CLIPYARD_PORT>, i.e. http://127.0.0.1:8787)
`;

/** The API's base URL: CLIPYARD_API_URL, else the local appliance this machine's config would serve. */
export function apiBaseUrl(env: Record<string, string | undefined> = process.env): string {
  const explicit = env.CLIPYARD_API_URL?.trim();
  if (explicit) {
    let url: URL;
    try {
      url = new URL(explicit);
    } catch {
      throw new Error(`CLIPYARD_API_URL is not a URL: ${explicit}`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`CLIPYARD_API_URL must be http(s): ${explicit}`);
    return explicit.replace(/\/+$/, "");
  }
  const config = loadConfig(env);
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host.includes(":") ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

/** `clipyard mcp`: MCP server on stdio for the jobs API. Exit code 2 on a configuration error. */
export default async function mcp(argv: string[]): Promise<number> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stderr.write(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    process.stderr.write(`clipyard mcp: unexpected argument '${argv[0]}'\n\n${USAGE}`);
    return 2;
  }
  const apiKey = process.env.SERVICE_API_KEY?.trim();
  if (!apiKey) {
    process.stderr.write(
      "clipyard mcp: SERVICE_API_KEY is not set. Set it to an API key (create one with `clipyard keys create --org NAME --env test`) in the MCP host's server configuration.\n",
    );
    return 2;
  }
  let baseUrl: string;
  try {
    baseUrl = apiBaseUrl();
  } catch (err) {
    process.stderr.write(`clipyard mcp: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  const level = process.env.CLIPYARD_LOG_LEVEL;
  if (level === "debug" || level === "info" || level === "warn" || level === "error") setLogLevel(level);
  log.debug("starting mcp", { api: baseUrl });
  await serveStdio(createApiClient({ baseUrl, apiKey }));
  return 0;
}

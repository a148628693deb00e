import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";

export const REPO_ROOT = resolve(import.meta.dir, "../..");
export const MAIN = join(REPO_ROOT, "src/main.ts");

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => done(port));
    });
  });
}


export interface Appliance {
  baseUrl: string;
  /** Environment for child processes that share this appliance's data dir and port. */
  env: Record<string, string>;
  createKey(org: string, env?: "test" | "live"): Promise<string>;
  stop(): Promise<void>;
}

/** Environment without this shell's clipyard/MCP settings, so tests never reach a developer's appliance. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith("CLIPYARD_") && k !== "SERVICE_API_KEY") env[k] = v;
  }
  return { ...env, ...extra };
}

/** Starts a real `clipyard serve` on a free port with a throwaway data dir and waits for /healthz. */
export async function startAppliance(): Promise<Appliance> {
  const dataDir = mkdtempSync(join(tmpdir(), "clipyard-mcp-test-"));
  const port = await freePort();
  const env = cleanEnv({
    CLIPYARD_DATA_DIR: dataDir,
    CLIPYARD_PORT: String(port),
    CLIPYARD_HOST: "127.0.0.1",
    CLIPYARD_TIME_SCALE: "0.02",
    CLIPYARD_LOG_LEVEL: "warn",
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const proc: Subprocess = Bun.spawn(["bun", "run", MAIN, "serve"], { cwd: REPO_ROOT, env, stdout: "ignore", stderr: "inherit" });
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`${baseUrl}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (proc.exitCode !== null) throw new Error(`clipyard serve exited early with code ${proc.exitCode}`);
    if (Date.now() > deadline) {
      proc.kill();
      throw new Error("clipyard serve did not answer /healthz within 90 s");
    }
    await Bun.sleep(100);
  }
  return {
    baseUrl,
    env,
    async createKey(org, keyEnv = "test") {
      const p = Bun.spawn(["bun", "run", MAIN, "keys", "create", "--org", org, "--env", keyEnv], { cwd: REPO_ROOT, env, stdout: "pipe", stderr: "pipe" });
      const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
      if (code !== 0) throw new Error(`keys create failed (${code}): ${err}`);
      return out.trim();
    },
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

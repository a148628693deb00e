import { spawn, type Subprocess } from "bun";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { testDbEnv } from "./db.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** The appliance as a separate OS process, the way users and the conformance suite run it. */
export class ServerProcess {
  proc: Subprocess | undefined;
  readonly env: Record<string, string>;

  /** Several nodes of a cluster may share one data directory: each logs to a file of its own. */
  logName = "server.log";

  constructor(readonly port: number, env: Record<string, string> = {}, readonly dataDir = mkdtempSync(join(tmpdir(), "clipyard-proc-"))) {
    this.env = { ...process.env, ...env, CLIPYARD_PORT: String(port), CLIPYARD_HOST: "127.0.0.1", CLIPYARD_DATA_DIR: dataDir, ...testDbEnv(dataDir) } as Record<string, string>;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The server's stderr (its JSON log), kept in the data directory so a failed start can show why. */
  get logPath(): string {
    return join(this.dataDir, this.logName);
  }

  /**
   * Starts `serve` (with `serveArgs`, e.g. `--role api`) and waits until /healthz answers, or for a
   * worker node (no HTTP) until its log says it started. The bound is generous because a loaded CI
   * machine can take many seconds to start Bun; a server that exits early fails at once, with its log.
   */
  async start(...serveArgs: string[]): Promise<void> {
    const proc = spawn(["bun", "run", join(ROOT, "src/main.ts"), "serve", ...serveArgs], { env: this.env, cwd: ROOT, stdout: "ignore", stderr: openSync(this.logPath, "a") });
    this.proc = proc;
    const worker = serveArgs.join(" ").includes("worker");
    const end = Date.now() + 90_000;
    while (Date.now() < end && proc.exitCode === null) {
      if (worker) {
        if (readFileSync(this.logPath, "utf8").includes('"clipyard worker started"')) return;
      } else {
        try {
          if ((await fetch(`${this.baseUrl}/healthz`)).ok) return;
        } catch {}
      }
      await Bun.sleep(50);
    }
    const log = readFileSync(this.logPath, "utf8").trim().split("\n").slice(-8).join("\n");
    throw new Error(`server did not become ready (${proc.exitCode === null ? "still starting after 90 s" : `exited ${proc.exitCode}`}); its log ends:\n${log}`);
  }

  /**
   * Runs a long-lived command other than serve (`watch`) as this process, on the same environment
   * and data directory; its stderr (the JSON log) goes to `logFile`. kill9() stops it.
   */
  run(logFile: string, ...args: string[]): void {
    this.proc = spawn(["bun", "run", join(ROOT, "src/main.ts"), ...args], { env: this.env, cwd: ROOT, stdout: "ignore", stderr: Bun.file(logFile) });
  }

  kill9(): Promise<number> {
    this.proc!.kill("SIGKILL");
    return this.proc!.exited;
  }

  async cli(...args: string[]): Promise<string> {
    const p = spawn(["bun", "run", join(ROOT, "src/main.ts"), ...args], { env: this.env, cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const out = await new Response(p.stdout).text();
    if ((await p.exited) !== 0) throw new Error(`cli ${args.join(" ")} failed: ${await new Response(p.stderr).text()}`);
    return out.trim();
  }

  async api(method: string, path: string, key?: string, body?: unknown): Promise<any> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return res.json();
  }
}

export function freePort(): number {
  const s = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

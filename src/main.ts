#!/usr/bin/env bun
/**
 * The clipyard command line. Each command lives in src/cli/<name>.ts and exports
 * `default async function (argv: string[]): Promise<number>` (the exit code); commands load lazily so
 * `clipyard mcp` or `clipyard keys` never pay for the pipeline's imports.
 */
const commands: Record<string, { summary: string; load: () => Promise<{ default: (argv: string[]) => Promise<number> }> }> = {
  serve: { summary: "run the HTTP API, scheduler and workers (--role api|worker: one of the two)", load: () => import("./cli/serve.ts") },
  keys: { summary: "create, list and revoke API keys", load: () => import("./cli/keys.ts") },
  highlights: { summary: "rank clips and write show notes for a transcript JSON", load: () => import("./cli/highlights.ts") },
  feeds: { summary: "register, list and remove podcast feeds polled into jobs", load: () => import("./cli/feeds.ts") },
  credits: { summary: "grant wallet credit, show a balance, set the receipt address", load: () => import("./cli/credits.ts") },
  login: { summary: "print a one-time sign-in link for the dashboard", load: () => import("./cli/login.ts") },
  watch: { summary: "turn media files copied into a folder into live jobs, results beside them", load: () => import("./cli/watch.ts") },
  process: { summary: "run the whole pipeline on a local file, without the server", load: () => import("./cli/process.ts") },
  doctor: { summary: "check ffmpeg, hardware encoders, speech runtime, GPU, models and the data directory", load: () => import("./cli/doctor.ts") },
  mcp: { summary: "run the MCP server (stdio) over the jobs API; needs SERVICE_API_KEY", load: () => import("./cli/mcp.ts") },
  models: { summary: "list, fetch and verify local models", load: () => import("./cli/models.ts") },
  runtime: { summary: "install or check the Python speech runtime (faster-whisper, ONNX Runtime)", load: () => import("./cli/runtime.ts") },
  transcribe: { summary: "transcribe a media file with word timings and speakers", load: () => import("./cli/transcribe.ts") },
  backup: { summary: "copy the database, files and secret key into a folder while the appliance serves", load: () => import("./cli/backup.ts") },
  restore: { summary: "bring a backup back into a new data directory (and database)", load: () => import("./cli/restore.ts") },
  service: { summary: "install or remove the systemd unit that runs the appliance (--user for your own session)", load: () => import("./cli/service.ts") },
};

function usage(): string {
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return `usage: clipyard <command> [options]\n\ncommands:\n${rows.join("\n")}\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    process.stdout.write(usage());
    return name ? 0 : 2;
  }
  const command = commands[name];
  if (!command) {
    process.stderr.write(`clipyard: unknown command '${name}'\n\n${usage()}`);
    return 2;
  }
  const mod = await command.load();
  return mod.default(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0 || !["serve", "mcp"].includes(process.argv[2] ?? "")) process.exit(code);
  },
  (err) => {
    process.stderr.write(`clipyard: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

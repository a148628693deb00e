import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { COMPILED, loadConfig, ROOT_DIR } from "../config.ts";
import { parseArgs } from "./args.ts";
import { systemdUnit } from "./service-unit.ts";

const UNIT = "clipyard.service";
const USAGE = `usage:
  clipyard service install [--user] [--data-dir DIR] [--run-as USER] [--unit-dir DIR] [--now]
      write ${UNIT} (restart on failure, journal logs, ProtectSystem=strict and the other hardening)
      --user       a unit of your own session manager (systemctl --user), data under ~/.local/share/clipyard
      --data-dir   the data directory (default /var/lib/clipyard/data, or ~/.local/share/clipyard/data with --user)
      --run-as     the system unit's account (default: the user who ran sudo, else the current one)
      --unit-dir   write the unit there instead of systemd's folder (no systemctl is run)
      --now        enable and start it
  clipyard service uninstall [--user] [--unit-dir DIR]
      stop, disable and remove the unit; the data directory stays
`;

function systemctl(user: boolean, ...args: string[]): boolean {
  if (!Bun.which("systemctl")) return false;
  const r = spawnSync("systemctl", [...(user ? ["--user"] : []), ...args], { stdio: ["ignore", "inherit", "inherit"] });
  return r.status === 0;
}

/** The login name (os.userInfo() answers "unknown" under Bun for some accounts). */
function currentUser(): string {
  const r = spawnSync("id", ["-un"], { encoding: "utf8" });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : String(process.getuid?.() ?? "root");
}

/** The command line that runs this clipyard: the single executable, or bun on this checkout's main.ts. */
function selfCommand(): string[] {
  return COMPILED ? [process.execPath] : [process.execPath, join(ROOT_DIR, "src/main.ts")];
}

export default async function service(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs(rest, ["user", "now"]);
  } catch (err) {
    process.stderr.write(`clipyard service: ${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const { opts, rest: extra } = parsed;
  const known = sub === "install" ? ["user", "now", "data-dir", "run-as", "unit-dir"] : ["user", "unit-dir"];
  const unknown = Object.keys(opts).filter((k) => !known.includes(k));
  if ((sub !== "install" && sub !== "uninstall") || extra.length || unknown.length) {
    process.stderr.write(unknown.length ? `clipyard service: unknown option --${unknown[0]}\n${USAGE}` : USAGE);
    return 2;
  }
  const user = opts.user === true;
  const custom = typeof opts["unit-dir"] === "string";
  const unitDir = custom ? resolve(opts["unit-dir"] as string) : user ? join(homedir(), ".config/systemd/user") : "/etc/systemd/system";
  const unitPath = join(unitDir, UNIT);

  if (sub === "uninstall") {
    if (!existsSync(unitPath)) {
      process.stderr.write(`clipyard service: no ${unitPath}\n`);
      return 1;
    }
    if (!custom) systemctl(user, "disable", "--now", UNIT);
    rmSync(unitPath);
    if (!custom) systemctl(user, "daemon-reload");
    process.stdout.write(`removed ${unitPath}; the data directory is kept\n`);
    return 0;
  }

  const dataDir = resolve(typeof opts["data-dir"] === "string" ? opts["data-dir"] : user ? join(homedir(), ".local/share/clipyard/data") : "/var/lib/clipyard/data");
  const runAs = user ? undefined : typeof opts["run-as"] === "string" ? opts["run-as"] : process.env.SUDO_USER || currentUser();
  const envFile = user ? join(homedir(), ".config/clipyard/clipyard.env") : "/etc/clipyard/clipyard.env";
  // The single executable keeps its models beside the data directory and may convert one on first use.
  const writable = COMPILED ? [loadConfig({ ...process.env, CLIPYARD_DATA_DIR: dataDir }).modelsDir] : [];
  const unit = systemdUnit({ command: selfCommand(), dataDir, runAs, user, envFile, writable });
  if (existsSync(unitPath) && readFileSync(unitPath, "utf8") !== unit) process.stderr.write(`clipyard service: replacing ${unitPath}\n`);
  mkdirSync(unitDir, { recursive: true });
  for (const dir of [dataDir, ...writable]) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // The account that runs it must own what it writes (ProtectSystem leaves nothing else writable).
    if (runAs && process.getuid?.() === 0) spawnSync("chown", ["-R", `${runAs}:`, dir]);
  }
  writeFileSync(unitPath, unit);
  if (runAs === "root") process.stderr.write("clipyard service: the unit runs as root; --run-as USER gives it an account of its own\n");
  process.stdout.write(`wrote ${unitPath} (data in ${dataDir}; settings such as CLIPYARD_HOST and CLIPYARD_PUBLIC_URL in ${envFile})\n`);
  if (custom) return 0;
  systemctl(user, "daemon-reload");
  const ctl = `systemctl${user ? " --user" : ""}`;
  if (opts.now === true) return systemctl(user, "enable", "--now", UNIT) ? 0 : 1;
  process.stdout.write(`start it with: ${ctl} enable --now clipyard${user ? "   (and `loginctl enable-linger` to run it without a login)" : ""}\nlogs: journalctl ${user ? "--user " : ""}-u clipyard -f\n`);
  return 0;
}

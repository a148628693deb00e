import { homedir } from "node:os";

/** What a unit is written for: the command that serves, where it keeps its data, as whom. */
export interface UnitOptions {
  /** The program and arguments before `serve`: the single executable, or bun and src/main.ts. */
  command: string[];
  dataDir: string;
  /** A system unit's account (never a login shell's root by default); absent for a user unit. */
  runAs?: string;
  /** A user unit (systemctl --user): runs in the operator's session manager, in their home. */
  user: boolean;
  /** Other folders it writes (the single executable's models folder beside the data directory). */
  writable: string[];
  /** Optional settings file (CLIPYARD_HOST, CLIPYARD_PUBLIC_URL …), read if present. */
  envFile: string;
}

const underHome = (path: string) => path === "/root" || path.startsWith("/root/") || path.startsWith("/home/") || path.startsWith(homedir() + "/");

/** "%" starts a systemd specifier everywhere in a value: a literal one is doubled. */
const literal = (text: string) => text.replaceAll("%", "%%");
/** One word of a list or command line: with spaces, quotes or backslashes it is double-quoted with escapes. */
const word = (w: string) => (/^[A-Za-z0-9_@+=:,./-]+$/.test(w) ? literal(w) : `"${literal(w).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`);

/**
 * The clipyard.service unit: restarted on failure, logging to the journal, and as confined as the
 * appliance allows. It writes only its data directory (ProtectSystem=strict + ReadWritePaths), gets
 * a private /tmp (its scratch folders), can never gain privileges, and cannot see home folders
 * unless the program or data live there (then read-only).
 */
export function systemdUnit(o: UnitOptions): string {
  const home = [o.dataDir, ...o.command].some((p) => p.startsWith("/") && underHome(p));
  const lines = [
    "# Written by `clipyard service install`; `clipyard service uninstall` removes it.",
    "[Unit]",
    "Description=clipyard media appliance (API, scheduler and workers)",
    "After=network-online.target",
    "Wants=network-online.target",
    "",
    "[Service]",
    "Type=simple",
    `ExecStart=${[...o.command, "serve"].map(word).join(" ")}`,
    // A single path, taken as written (quotes would be part of it).
    `WorkingDirectory=${literal(o.dataDir)}`,
    `Environment=${word(`CLIPYARD_DATA_DIR=${o.dataDir}`)}`,
    `EnvironmentFile=-${literal(o.envFile)}`,
    ...(o.runAs ? [`User=${o.runAs}`] : []),
    "Restart=on-failure",
    "RestartSec=5",
    // serve hands running jobs back on SIGTERM; give it the time to.
    "TimeoutStopSec=60",
    "StandardOutput=journal",
    "StandardError=journal",
    "SyslogIdentifier=clipyard",
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    `ReadWritePaths=${[o.dataDir, ...o.writable].map(word).join(" ")}`,
    "PrivateTmp=yes",
    ...(o.user ? [] : [home ? "ProtectHome=read-only" : "ProtectHome=yes"]),
    // A user manager applies these through a user namespace where the kernel allows one; they
    // matter for a system service.
    ...(o.user ? [] : ["ProtectKernelTunables=yes", "ProtectKernelModules=yes", "ProtectControlGroups=yes", "RestrictSUIDSGID=yes", "LockPersonality=yes"]),
    "UMask=0077",
    "",
    "[Install]",
    `WantedBy=${o.user ? "default.target" : "multi-user.target"}`,
    "",
  ];
  return lines.join("\n");
}

/**
 * `clipyard service install|uninstall` writes and removes a systemd unit that systemd itself accepts:
 * `systemd-analyze verify` (Debian's systemd package, scripts/setup/service.sh) parses every
 * directive, checks that ExecStart names a program, and warns about unknown settings or values, so
 * the test wants its stderr empty too. --unit-dir keeps the test from touching the machine's systemd.
 */
import { afterAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "clipyard-service-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const clipyard = (...args: string[]) => {
  const r = spawnSync("bun", ["run", join(ROOT, "src/main.ts"), "service", ...args], { cwd: ROOT, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

/** systemd-analyze verify on a unit file; it needs no running systemd for a system unit. */
function verify(unit: string) {
  const r = spawnSync("systemd-analyze", ["verify", unit], { encoding: "utf8" });
  if (r.error) throw new Error(`systemd-analyze cannot run here (${r.error.message}): install the systemd package (scripts/setup/service.sh)`);
  return { code: r.status, err: r.stderr.trim() };
}

const directives = (text: string) => text.split("\n").filter((l) => /^[A-Za-z]+=/.test(l)).map((l) => l.slice(0, l.indexOf("=")));

test("a system unit: restarts on failure, logs to the journal, confined to its data directory, and systemd accepts it", () => {
  const units = join(work, "system");
  const data = join(work, "state", "data");
  const r = clipyard("install", "--unit-dir", units, "--data-dir", data, "--run-as", "root");
  expect(r.code).toBe(0);
  expect(r.out).toContain(join(units, "clipyard.service"));
  const unit = readFileSync(join(units, "clipyard.service"), "utf8");
  for (const line of [
    "Restart=on-failure",
    `Environment=CLIPYARD_DATA_DIR=${data}`,
    `WorkingDirectory=${data}`,
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    `ReadWritePaths=${data}`,
    "PrivateTmp=yes",
    "ProtectHome=yes",
    "StandardOutput=journal",
    "StandardError=journal",
    "User=root",
    "WantedBy=multi-user.target",
  ]) {
    expect(unit.split("\n")).toContain(line);
  }
  expect(unit).toMatch(/^ExecStart=\S*bun\S* \S+\/src\/main\.ts serve$/m);
  // Every directive once: a repeated one would silently override the first.
  expect(new Set(directives(unit)).size).toBe(directives(unit).length);
  expect(existsSync(data)).toBe(true);
  expect(verify(join(units, "clipyard.service"))).toEqual({ code: 0, err: "" });

  expect(clipyard("uninstall", "--unit-dir", units)).toMatchObject({ code: 0 });
  expect(existsSync(join(units, "clipyard.service"))).toBe(false);
  expect(existsSync(data)).toBe(true); // the data stays
  expect(clipyard("uninstall", "--unit-dir", units).code).toBe(1);
}, 60_000);

test("a user unit (--user): the session's default target, no User=, and still accepted by systemd", () => {
  const units = join(work, "user");
  const data = join(work, "user-state", "data");
  expect(clipyard("install", "--user", "--unit-dir", units, "--data-dir", data).code).toBe(0);
  const unit = readFileSync(join(units, "clipyard.service"), "utf8");
  expect(unit).toContain("WantedBy=default.target");
  expect(unit).not.toContain("User=");
  expect(unit).toContain("ProtectSystem=strict");
  // A user manager cannot be started in this test container (no user session): systemd-analyze
  // verifies the file as a system unit, which checks the same syntax, values and ExecStart.
  expect(verify(join(units, "clipyard.service"))).toEqual({ code: 0, err: "" });
}, 60_000);

test("a data directory with spaces is quoted the way systemd reads it", () => {
  const units = join(work, "spaces");
  const data = join(work, "studio machine", "data");
  expect(clipyard("install", "--unit-dir", units, "--data-dir", data, "--run-as", "root").code).toBe(0);
  const unit = readFileSync(join(units, "clipyard.service"), "utf8");
  expect(unit).toContain(`Environment="CLIPYARD_DATA_DIR=${data}"`);
  expect(verify(join(units, "clipyard.service"))).toEqual({ code: 0, err: "" });
}, 60_000);

test("bad subcommands and options are usage errors", () => {
  expect(clipyard().code).toBe(2);
  expect(clipyard("start").code).toBe(2);
  const r = clipyard("install", "--unit-dir", join(work, "x"), "--colour", "blue");
  expect(r).toMatchObject({ code: 2, err: expect.stringContaining("unknown option --colour") });
  expect(existsSync(join(work, "x"))).toBe(false);
});

import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { listLedger, walletSummary } from "../../src/billing/wallet.ts";
import { systemClock } from "../../src/clock.ts";
import { openTestDb, testDbEnv } from "../helpers/db.ts";
import { redeemLoginToken } from "../../src/web/dashboard/session.ts";

/** The operator commands, run as the real CLI process against a real data directory. */
const MAIN = resolve(import.meta.dir, "../../src/main.ts");
let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function clipyard(...args: string[]) {
  const p = Bun.spawnSync(["bun", MAIN, ...args], {
    env: { ...process.env, CLIPYARD_DATA_DIR: dir, ...testDbEnv(dir), CLIPYARD_PUBLIC_URL: "http://clipyard.lan:8787", CLIPYARD_SMTP_URL: "" },
  });
  return { code: p.exitCode, out: p.stdout.toString(), err: p.stderr.toString() };
}

describe("clipyard credits / login", () => {
  test("grant credits the ledger within 5-500 USD and refuses outside it", () => {
    dir = mkdtempSync(join(tmpdir(), "clipyard-cli-"));
    const db = openTestDb(dir);
    const org = ensureOrg(db, "acme", systemClock);
    db.$client.close();

    expect(clipyard("credits", "grant", "--org", "nobody", "--amount", "10").code).toBe(1);
    for (const amount of ["4.99", "500.01", "10.001"]) {
      const r = clipyard("credits", "grant", "--org", "acme", "--amount", amount);
      expect(r.code).toBe(1);
      expect(r.err).toContain("invalid_amount");
    }
    const ok = clipyard("credits", "grant", "--org", "acme", "--amount", "25.5", "--note", "pilot");
    expect(ok.code).toBe(0);
    expect(ok.out).toBe("granted $25.50 to acme: receipt #1; balance $25.50\n");
    expect(clipyard("credits", "grant", "--org", "acme", "--amount", "500").code).toBe(0);
    expect(clipyard("credits", "balance", "--org", "acme").out).toContain("balance $525.50\n");

    const check = openTestDb(dir);
    expect(walletSummary(check, org.id, Date.now()).balanceCents).toBe(52550);
    expect(listLedger(check, org.id).map((e) => [e.kind, e.amountCents])).toEqual([
      ["credit", 50000],
      ["credit", 2550],
    ]);
    check.$client.close();
  }, 60_000);

  test("login prints a one-time link that the dashboard accepts", () => {
    dir = mkdtempSync(join(tmpdir(), "clipyard-cli-"));
    const db = openTestDb(dir);
    ensureOrg(db, "acme", systemClock);
    db.$client.close();
    const r = clipyard("login", "--org", "acme");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^http:\/\/clipyard\.lan:8787\/dashboard\/login\?token=[0-9A-Za-z]{27}\n$/);
    const token = new URL(r.out.trim()).searchParams.get("token")!;
    const check = openTestDb(dir);
    expect(redeemLoginToken(check, systemClock, token)).toBeDefined();
    expect(redeemLoginToken(check, systemClock, token)).toBeUndefined();
    check.$client.close();
    expect(clipyard("login", "--org", "nobody").code).toBe(1);
  }, 60_000);
});

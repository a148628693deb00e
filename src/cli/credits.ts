import { findOrgByName } from "../accounts/orgs.ts";
import { ApiError } from "../errors.ts";
import { loadBillingConfig } from "../billing/config.ts";
import { formatUsd, parseUsd } from "../billing/pricing.ts";
import { Billing } from "../billing/service.ts";
import { setBillingEmail } from "../billing/topups.ts";
import { walletSummary } from "../billing/wallet.ts";
import { systemClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { openDb } from "../db/client.ts";
import { parseArgs } from "./args.ts";

const USAGE = `usage:
  clipyard credits grant --org NAME --amount USD [--note TEXT]   credit the wallet (5-500 USD), issue and mail a receipt
  clipyard credits balance --org NAME                            show balance, holds and free jobs left
  clipyard credits email --org NAME --email ADDRESS              set where receipts are mailed ("" to clear)
`;

/** Operator commands for the wallet of a self-hosted appliance (no payment provider needed). */
export default async function credits(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { opts } = parseArgs(rest);
  if (!["grant", "balance", "email"].includes(sub ?? "") || typeof opts.org !== "string") {
    process.stderr.write(USAGE);
    return 2;
  }
  const db = openDb(loadConfig());
  try {
    const org = findOrgByName(db, opts.org);
    if (!org) {
      process.stderr.write(`clipyard: no organisation ${opts.org} (create one with: clipyard keys create --org NAME)\n`);
      return 1;
    }
    const billing = new Billing(db, systemClock, loadBillingConfig());
    if (sub === "grant") {
      if (typeof opts.amount !== "string") {
        process.stderr.write(USAGE);
        return 2;
      }
      try {
        const { receipt } = billing.grant(org.id, parseUsd(opts.amount) ?? -1, typeof opts.note === "string" ? opts.note : undefined);
        await billing.idle();
        const s = walletSummary(db, org.id, systemClock.now());
        process.stdout.write(`granted ${formatUsd(receipt.amountCents)} to ${org.name}: receipt #${receipt.number}; balance ${formatUsd(s.balanceCents)}\n`);
        const mailed = db.$client.query("SELECT emailed_at, email_error FROM receipts WHERE id = ?").get(receipt.id) as { emailed_at: number | null; email_error: string | null };
        if (mailed.emailed_at) process.stderr.write(`receipt mailed to ${receipt.emailTo}\n`);
        else if (mailed.email_error) process.stderr.write(`receipt stored; mailing it failed: ${mailed.email_error}\n`);
        return 0;
      } catch (err) {
        if (err instanceof ApiError) {
          process.stderr.write(`clipyard: ${err.code}: ${err.message}\n`);
          return 1;
        }
        throw err;
      }
    }
    if (sub === "email") {
      if (typeof opts.email !== "string" || (opts.email !== "" && !/^[^\s@]+@[^\s@]+$/.test(opts.email))) {
        process.stderr.write(USAGE);
        return 2;
      }
      setBillingEmail(db, org.id, opts.email || null);
      return 0;
    }
    const s = walletSummary(db, org.id, systemClock.now());
    process.stdout.write(
      `balance ${formatUsd(s.balanceCents)}\nheld ${formatUsd(s.heldCents)}\navailable ${formatUsd(s.availableCents)}\nfree jobs remaining ${s.freeJobsRemaining}\n`,
    );
    return 0;
  } finally {
    db.$client.close();
  }
}

import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { receipts } from "../../src/db/schema.ts";
import { setBillingEmail } from "../../src/billing/topups.ts";
import { dollars, world, type World } from "./helpers.ts";

/** Receipts mailed through nodemailer to a real SMTP server listening in this test. */
interface Received {
  from: string;
  to: string[];
  user: string | undefined;
  raw: string;
}

let w: World;
let server: SMTPServer | undefined;
afterEach(async () => {
  w?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function startSmtp(opts: { refuseRecipient?: boolean } = {}): Promise<{ url: string; inbox: Received[] }> {
  const inbox: Received[] = [];
  server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    onAuth(auth, _session, cb) {
      if (auth.username === "mailer" && auth.password === "s3cret") cb(null, { user: auth.username });
      else cb(new Error("bad credentials"));
    },
    onRcptTo(address, _session, cb) {
      cb(opts.refuseRecipient ? Object.assign(new Error("mailbox unavailable"), { responseCode: 550 }) : undefined);
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        inbox.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
          raw: Buffer.concat(chunks).toString("utf8"),
        });
        cb();
      });
    },
  });
  const port = await new Promise<number>((resolve) => {
    server!.listen(0, "127.0.0.1", () => resolve((server!.server.address() as { port: number }).port));
  });
  return { url: `smtp://mailer:s3cret@127.0.0.1:${port}`, inbox };
}

describe("receipts by SMTP", () => {
  test("a credited top-up mails its receipt to the billing address and records it", async () => {
    const smtp = await startSmtp();
    w = world({ config: { smtpUrl: smtp.url, receiptFrom: "clipyard billing <billing@clipyard.lan>" } });
    setBillingEmail(w.db, w.orgId, "accounts@acme.example");
    const { receipt } = w.billing.grant(w.orgId, dollars(120));
    await w.billing.idle();

    expect(smtp.inbox).toHaveLength(1);
    const mail = smtp.inbox[0]!;
    expect(mail).toMatchObject({ from: "billing@clipyard.lan", to: ["accounts@acme.example"], user: "mailer" });
    expect(mail.raw).toContain("Subject: clipyard receipt #1: $120.00 wallet credit");
    expect(mail.raw).toContain("Amount:         $120.00 USD");
    expect(mail.raw).toContain("Organisation:   acme");
    const stored = w.db.select().from(receipts).where(eq(receipts.id, receipt.id)).get()!;
    expect(stored.emailTo).toBe("accounts@acme.example");
    expect(stored.emailedAt).toBe(w.clock.now());
    expect(stored.emailError).toBeNull();
  });

  test("without a billing address the receipt is stored and not mailed", async () => {
    const smtp = await startSmtp();
    w = world({ config: { smtpUrl: smtp.url } });
    const { receipt } = w.billing.grant(w.orgId, dollars(5));
    await w.billing.idle();
    expect(smtp.inbox).toHaveLength(0);
    expect(w.db.select().from(receipts).where(eq(receipts.id, receipt.id)).get()).toMatchObject({ emailTo: null, emailedAt: null });
  });

  test("a refused delivery is recorded on the receipt; the credit stands", async () => {
    const smtp = await startSmtp({ refuseRecipient: true });
    w = world({ config: { smtpUrl: smtp.url } });
    setBillingEmail(w.db, w.orgId, "nobody@acme.example");
    const { receipt, credited } = w.billing.grant(w.orgId, dollars(5));
    await w.billing.idle();
    expect(credited).toBe(true);
    const stored = w.db.select().from(receipts).where(eq(receipts.id, receipt.id)).get()!;
    expect(stored.emailedAt).toBeNull();
    expect(stored.emailError).toContain("mailbox unavailable");
  });
});

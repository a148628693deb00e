import { existsSync } from "node:fs";
import { chromium, type Browser, type Page } from "playwright-core";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { issueLoginToken, loginUrl } from "../../src/web/dashboard/session.ts";
import type { TestAppliance } from "./appliance.ts";

const CHROMIUM = "/usr/bin/chromium";

/** The system Chromium, headless, with nothing of its own reaching the network. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/setup/billing.sh (apt-get install chromium)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", ...extraArgs],
  });
}

/** A new page signed in to the dashboard of `org` through a one-time login link, as `clipyard login` gives. */
export async function signedInPage(browser: Browser, app: TestAppliance, org: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const { id } = ensureOrg(app.ctx.db, org, app.ctx.clock);
  await page.goto(loginUrl(app.baseUrl, issueLoginToken(app.ctx.db, app.ctx.clock, id).token));
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

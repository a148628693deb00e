import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";

/** Where browser tests leave screenshots for a person to look at (git-ignored). */
export const SCREENSHOTS = join(import.meta.dir, "../browser/screenshots");

/** Debian's Chromium, headless, with nothing that reaches the network on its own. */
export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const executablePath = "/usr/bin/chromium";
  if (!existsSync(executablePath)) throw new Error(`${executablePath} is missing: run scripts/setup/billing.sh (apt-get install chromium)`);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({
    executablePath,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", ...extraArgs],
  });
}

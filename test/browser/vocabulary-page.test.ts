import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { startAppliance, type TestAppliance } from "../helpers/appliance.ts";
import { launchChromium, signedInPage } from "../helpers/browser.ts";

/** The dashboard's Vocabulary page in real Chromium: one list per world, the same lists as /v1/vocabulary. */
const SHOTS = join(import.meta.dir, "screenshots");
let app: TestAppliance;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  app = await startAppliance({ scheduler: false });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

test("an operator edits each world's vocabulary; the API reads what was saved, and bad lists are refused", async () => {
  const liveKey = app.key("vocab-page", "live");
  const testKey = app.key("vocab-page", "test");
  await app.api("PUT", "/v1/vocabulary", { key: testKey, body: { entries: ["Sandbox Show"] } });

  const page = await signedInPage(browser, app, "vocab-page");
  await page.getByRole("link", { name: "Vocabulary" }).click();
  expect(await page.title()).toStartWith("Vocabulary · vocab-page");
  expect(await page.getByLabel("sandbox vocabulary").inputValue()).toBe("Sandbox Show");
  expect(await page.getByLabel("live vocabulary").inputValue()).toBe("");

  await page.getByLabel("live vocabulary").fill("Rooftop Hours\n  Nora Vance \n\nTheo Marsh\nrooftop hours");
  await page.getByRole("button", { name: "Save live vocabulary" }).click();
  expect(await page.getByRole("status").textContent()).toContain("Vocabulary saved");
  // Blank lines and repeats dropped, each entry trimmed.
  expect((await app.api("GET", "/v1/vocabulary", { key: liveKey })).json.entries).toEqual(["Rooftop Hours", "Nora Vance", "Theo Marsh"]);
  expect(await page.getByLabel("live vocabulary").inputValue()).toBe("Rooftop Hours\nNora Vance\nTheo Marsh");
  // The other world's list is untouched.
  expect((await app.api("GET", "/v1/vocabulary", { key: testKey })).json.entries).toEqual(["Sandbox Show"]);
  await page.screenshot({ path: join(SHOTS, "vocabulary-page.png"), fullPage: true });

  await page.getByLabel("sandbox vocabulary").fill("x".repeat(61));
  await page.getByRole("button", { name: "Save sandbox vocabulary" }).click();
  expect(await page.getByRole("alert").textContent()).toContain("Not saved");
  expect((await app.api("GET", "/v1/vocabulary", { key: testKey })).json.entries).toEqual(["Sandbox Show"]);
}, 60_000);

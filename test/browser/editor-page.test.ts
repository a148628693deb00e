import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { splitSentences } from "../../src/pipeline/highlights/sentences.ts";
import { snapToSentenceEdges } from "../../src/pipeline/highlights/clip-bounds.ts";
import type { Word } from "../../src/pipeline/types.ts";
import { ensureOrg } from "../../src/accounts/orgs.ts";
import { issueLoginToken, loginUrl } from "../../src/web/dashboard/session.ts";
import { signedInPage } from "../helpers/browser.ts";
import { launchChromium, SCREENSHOTS } from "../helpers/chromium.ts";
import { cues } from "../helpers/exports.ts";
import { startAppliance, VIDEO_BODY, type TestAppliance } from "../helpers/appliance.ts";
import { CALL_TWO_CLIPS, finishedJob } from "../helpers/finished-job.ts";
import { testShared } from "../helpers/shared.ts";
import { eventually } from "../helpers/wait.ts";

/**
 * The job page's editor (issue #32 item 6) in real Chromium, on one real live job of the shortest
 * shared two-voice recording (30 s): move a clip's end by a sentence, correct a caption line, find
 * and replace with the keyboard, make a clip from a transcript selection, watch the renders finish
 * without a reload, delete the new clip; each result read back from the API (the re-rendered
 * clip's SRT holds the corrected word). Then the page's security: no CSRF token, another
 * organisation's session, escaped transcript text. Screenshots at 1280 and 390 px wide.
 */
/**
 * The appliance: the live test's own copy of a finished job (test/helpers/finished-job.ts), which the
 * sandbox test after it uses too; that one starts a bare appliance when the live test was skipped.
 */
let app: TestAppliance;
let browser: Browser;
// A tenth of real time: the sandbox job takes seconds; the live job's stall watchdog still leaves it minutes.
const TENTH = { CLIPYARD_ALLOW_PRIVATE_NETWORK: "1", CLIPYARD_ALLOW_HTTP: "1", CLIPYARD_TIME_SCALE: "0.1" };

beforeAll(async () => {
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

/** The API, waiting out a 429 of the key's rate limit (the renders are polled for minutes on a loaded machine). */
async function call(method: string, path: string, opts: Parameters<TestAppliance["api"]>[2]) {
  for (;;) {
    const res = await app.api(method, path, opts);
    if (res.status !== 429) return res;
    await Bun.sleep(Number(res.headers.get("retry-after") ?? 1) * 1000);
  }
}
const jobOf = async (key: string, id: string) => (await call("GET", `/v1/jobs/${id}`, { key })).json;
const words = (id: string) => JSON.parse(readFileSync(join(app.dataDir, "jobs", id, "checkpoint.json"), "utf8")).state.transcript.words as Word[];
const notice = (page: Page) => page.locator(".notice, .error").first().textContent();
/**
 * The notice once it says `expected`, or once the page shows an error: the page updates it in place
 * after its request, so reading it straight after a click can read the previous step's notice.
 */
const noticeSaying = async (page: Page, expected: string) =>
  (
    await eventually(
      async () => ({ text: (await notice(page)) ?? "", errors: await page.locator(".error").count() }),
      (v) => v.errors > 0 || v.text.includes(expected),
      { what: `the notice "${expected}"` },
    )
  ).text;
const card = (page: Page, rank: number) => page.locator(`article[data-editor-clip="${rank}"]`);

testShared("the job page edits clips: edges, a caption line, who said a line, find and replace, a clip of one's own, delete; renders followed without a reload", async () => {
  // The live job on the call that rerender.test.ts, editing.test.ts and review-rerender.test.ts start from too, finished.
  const finished = await finishedJob(CALL_TWO_CLIPS.recording(), CALL_TWO_CLIPS.options, { env: TENTH });
  app = finished.app;
  const { key, id, org } = finished;
  const done = await jobOf(key, id);
  expect(done.error).toBeNull();
  expect(done.status).toBe("complete");
  const wallet = (await call("GET", "/v1/wallet", { key })).json;
  const first = done.output.clips[0];
  const w0 = words(id);

  const page = await signedInPage(browser, app, org);
  await page.setViewportSize({ width: 1280, height: 900 });
  const blocked: string[] = [];
  page.on("console", (m) => m.text().includes("Content Security Policy") && blocked.push(m.text()));
  await page.goto(`${app.baseUrl}/dashboard/jobs/${id}`);

  // Every sentence of the transcript is listed, and every word the recogniser gave under 0.5 is marked.
  const sentences = splitSentences(w0);
  expect(await page.locator("#transcript li").count()).toBe(sentences.length);
  const unsure = w0.filter((w) => typeof w.p === "number" && w.p < 0.5).length;
  expect(await page.locator("#transcript mark.unsure").count()).toBe(unsure);
  console.log(`editor page: ${sentences.length} sentences, ${unsure} unsure words of ${w0.length}`);
  // Clip 1 shows its own sentences (and one either side, marked as outside it).
  const inside = sentences.filter((s) => s.start >= first.start_time - 0.001 && s.end <= first.end_time + 0.001);
  expect(await card(page, 1).locator("li.in").count()).toBe(inside.length);
  // The brand preview: clip 1's covers, one per format, load from this origin (the page's CSP allows no other).
  expect(Object.keys(first.thumbnail_urls ?? {}).length).toBeGreaterThan(0);
  const covers = card(page, 1).locator("figure.covers img");
  expect(await covers.count()).toBe(Object.keys(first.thumbnail_urls).length);
  await covers.first().scrollIntoViewIfNeeded();
  await page.waitForFunction(() => [...document.querySelectorAll('article[data-editor-clip="1"] figure.covers img')].every((i) => (i as HTMLImageElement).complete && (i as HTMLImageElement).naturalWidth > 0), undefined, { timeout: 30_000 });
  await page.screenshot({ path: join(SCREENSHOTS, "editor-desktop-before.png"), fullPage: true });

  // 1. Clip 1 ends one sentence later: the render queued has the next sentence end the API snaps to.
  const later = card(page, 1).getByRole("button", { name: "End a sentence later (clip 1)" });
  const canExtend = await later.isEnabled();
  const move = canExtend ? later : card(page, 1).getByRole("button", { name: "Start a sentence earlier (clip 1)" });
  await move.click();
  expect(await noticeSaying(page, "Re-render queued")).toContain("Re-render queued");
  const moved = (await jobOf(key, id)).output.clips[0].render;
  const expected = canExtend ? snapToSentenceEdges(w0, first.start_time, moved.end_time) : snapToSentenceEdges(w0, moved.start_time, first.end_time);
  expect([moved.start_time, moved.end_time]).toEqual([expected!.start, expected!.end]);
  if (canExtend) expect(moved.end_time).toBeGreaterThan(first.end_time);
  else expect(moved.start_time).toBeLessThan(first.start_time);
  // The page now lists one more sentence in the clip.
  expect(await card(page, 1).locator("li.in").count()).toBeGreaterThan(inside.length);

  // 2. A caption line of clip 1, corrected: its first sentence gets a word nobody said.
  const line = card(page, 1).locator("li.in").first();
  await line.getByText("Edit line").click();
  const box = line.getByRole("textbox", { name: /What was said/ });
  const said = (await box.inputValue()).trim();
  await box.fill(`Zanzibar ${said}`);
  await line.getByRole("button", { name: "Save correction" }).click();
  expect(await noticeSaying(page, "Correction saved")).toContain("Correction saved");
  expect(await card(page, 1).locator("li.in").first().textContent()).toContain("Zanzibar");

  // 2b. Who said a line of clip 1 (plain forms; the page reloads): its last sentence goes to someone the
  // transcript missed, then to the other voice, and the missed person, left with no words, is gone again.
  const clip1LastLine = () => card(page, 1).locator("li.in").last();
  const lineSaid = splitSentences(words(id)).filter((x) => x.start >= moved.start_time - 0.001 && x.end <= moved.end_time + 0.001).at(-1)!;
  const saidBy = async (who: string) =>
    ((await jobOf(key, id)).output.transcript as Array<{ speaker: string; start: number; end: number }>).some((seg) => seg.speaker === who && seg.start <= lineSaid.start + 0.001 && seg.end >= lineSaid.end - 0.001);
  await clip1LastLine().getByText("Edit line").click();
  const options = await clip1LastLine().getByLabel("Said by").locator("option").allTextContents();
  const current = await clip1LastLine().getByLabel("Said by").inputValue();
  const otherVoice = options.find((o) => o !== current)!;
  expect(otherVoice).toBeDefined();
  await clip1LastLine().getByLabel("or someone the transcript missed").fill("Guest Three");
  await clip1LastLine().getByRole("button", { name: "Save speaker" }).click();
  expect(await noticeSaying(page, "Speakers saved")).toContain("Speakers saved");
  expect(await saidBy("Guest Three")).toBe(true);
  await clip1LastLine().getByText("Edit line").click();
  expect(await clip1LastLine().getByLabel("Said by").inputValue()).toBe("Guest Three");
  await clip1LastLine().getByLabel("Said by").selectOption(otherVoice);
  await clip1LastLine().getByRole("button", { name: "Save speaker" }).click();
  // The same notice as the step before: wait for the job's transcript instead.
  expect(await eventually(() => saidBy(otherVoice), (v) => v, { what: "the line given to the other voice" })).toBe(true);
  expect((await jobOf(key, id)).output.transcript.some((seg: { speaker: string }) => seg.speaker === "Guest Three")).toBe(false);

  // 3. Find and replace across the episode, from the keyboard: a word outside every clip, so no render.
  const clipsNow = (await jobOf(key, id)).output.clips as Array<{ start_time: number; end_time: number; render?: { start_time: number; end_time: number } }>;
  const outside = (t: number) => clipsNow.every((c) => t < Math.min(c.start_time, c.render?.start_time ?? Infinity) - 0.5 || t > Math.max(c.end_time, c.render?.end_time ?? 0) + 0.5);
  const target = words(id).find((w) => /^[A-Za-z]{4,}[.,]?$/.test(w.word.trim()) && outside(w.start));
  const find = target ? target.word.trim().replace(/[.,]$/, "") : "Hello";
  await page.getByLabel("Find", { exact: true }).focus();
  await page.keyboard.type(find);
  await page.keyboard.press("Tab");
  await page.keyboard.type("Kilimanjaro");
  await page.keyboard.press("Enter");
  // Step 2 left the same notice on the page, so it cannot say this request is done: wait for the job's
  // transcript to hold the replacement, then for the page to show it.
  const transcriptText = (o: { transcript: Array<{ text: string }> }) => o.transcript.map((s) => s.text).join(" ");
  const replaced = await eventually(async () => (await jobOf(key, id)).output, (o) => transcriptText(o).includes("Kilimanjaro"), { what: "the replacement in the job's transcript" });
  expect(transcriptText(replaced)).toContain("Kilimanjaro");
  await page.locator("#transcript", { hasText: "Kilimanjaro" }).waitFor({ timeout: 30_000 });
  expect(await noticeSaying(page, "Correction saved")).toContain("Correction saved");

  // 4. A clip of one's own from a selection of two sentences in the transcript.
  const w1 = words(id);
  const s1 = splitSentences(w1);
  // Two sentences the API keeps as they are, over 3 s, opening on a word with a duration (a clip of
  // two bare "Hello."s is too short and quiet to render).
  const pick = s1.findIndex((s, i) => {
    const next = s1[i + 1];
    const snapped = next && snapToSentenceEdges(w1, s.start, next.end);
    const opening = w1[s.firstWord]!;
    return snapped?.start === s.start && snapped.end === next!.end && next!.end - s.start >= 3 && opening.end - opening.start >= 0.1;
  });
  expect(pick).toBeGreaterThanOrEqual(0);
  await page.evaluate((k) => {
    const items = document.querySelectorAll("#transcript li");
    const range = document.createRange();
    range.setStart(items[k]!.querySelector(".words")!.firstChild!, 0);
    range.setEnd(items[k + 1]!.querySelector(".words")!, 1);
    document.getSelection()!.removeAllRanges();
    document.getSelection()!.addRange(range);
  }, pick);
  await expect(eventually(() => page.locator("#selection-note").textContent(), (t) => !!t, { what: "the selection note" })).resolves.toContain(`Selected sentences ${pick + 1}–${pick + 2}`);
  expect(Number(await page.locator("#new-clip-from").inputValue())).toBeCloseTo(s1[pick]!.start, 3);
  expect(Number(await page.locator("#new-clip-to").inputValue())).toBeCloseTo(s1[pick + 1]!.end, 3);
  await page.getByLabel("Title (optional)").fill("Our own moment");
  await page.getByRole("button", { name: "Make clip" }).click();
  expect(await noticeSaying(page, "Clip added")).toContain("Clip added");
  const own = (await jobOf(key, id)).output.clips.find((c: any) => c.origin === "editor");
  expect(own).toMatchObject({ title: "Our own moment", start_time: s1[pick]!.start, end_time: s1[pick + 1]!.end, rank: 3 });
  expect(await card(page, 3).locator("h3").textContent()).toContain("Our own moment");

  // 5. The renders finish while the page stays loaded: its status lines follow them.
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
  for (const c of [first.id, own.id]) {
    const settled = page.locator(`[data-render-of="${c}"]`).locator('[data-render-state="complete"], [data-render-state="failed"]');
    await settled.waitFor({ timeout: 300_000 });
    expect(await settled.textContent()).toBe("rendered");
  }
  expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
  expect(await page.locator('#clips tr[data-clip="1"] [data-render]').textContent()).toBe("complete");
  expect(Number(await page.getByLabel("Start of clip 1 (seconds)").inputValue())).toBe(moved.start_time);
  expect(Number(await page.getByLabel("End of clip 1 (seconds)").inputValue())).toBe(moved.end_time);
  const after = await jobOf(key, id);
  const clip1 = after.output.clips[0];
  expect(clip1).toMatchObject({ start_time: moved.start_time, end_time: moved.end_time, render: { status: "complete", error: null } });
  const srt = cues(await (await fetch(clip1.captions_srt_url)).text()).map((c) => c.text).join(" ");
  expect(srt).toContain("Zanzibar");
  expect(await page.locator(`[data-links-of="${first.id}"] a`).first().getAttribute("href")).toBe(Object.values(clip1.rendered_urls)[0] as string);
  await page.screenshot({ path: join(SCREENSHOTS, "editor-desktop.png"), fullPage: true });

  // 6. At 390 px the page reflows: nothing scrolls sideways.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.screenshot({ path: join(SCREENSHOTS, "editor-390.png"), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });

  // 7. Delete the new clip: gone from the job, its files too.
  const ownVideo = Object.values((after.output.clips as any[]).find((c) => c.id === own.id).rendered_urls)[0] as string;
  await card(page, 3).getByText("Delete clip").first().click();
  await card(page, 3).getByRole("button", { name: "Delete clip 3" }).click();
  expect(await noticeSaying(page, "Clip deleted")).toContain("Clip deleted");
  expect((await jobOf(key, id)).output.clips.map((c: any) => c.id)).toEqual([first.id, done.output.clips[1].id]);
  expect((await fetch(ownVideo)).status).toBe(404);
  expect(await page.locator('article[data-editor-clip="3"]').count()).toBe(0);

  // Nothing was billed, and the page's own script ran under its CSP.
  expect((await call("GET", "/v1/wallet", { key })).json).toEqual(wallet);
  expect(blocked).toEqual([]);

  // Transcript text is escaped: a line corrected to markup shows as text.
  const lastLine = page.locator("#transcript li").last();
  const lastSentence = s1.at(-1)!;
  const mid = (x: Word) => (x.start + x.end) / 2;
  const xss = await page.evaluate(
    async ({ id, start, end }) => {
      const csrf = (document.querySelector('input[name="csrf"]') as HTMLInputElement).value;
      const res = await fetch(`/dashboard/jobs/${id}/corrections`, { method: "POST", body: new URLSearchParams({ csrf, start_time: String(start), end_time: String(end), text: `<img src=x id=xss> ok` }) });
      return res.status;
    },
    { id, start: mid(w1[lastSentence.firstWord]!), end: mid(w1[lastSentence.lastWord]!) + 0.0001 },
  );
  expect(xss).toBe(200);
  await page.reload();
  expect(await page.locator("#xss").count()).toBe(0);
  expect(await lastLine.textContent()).toContain("<img src=x id=xss>");

  // A post without the session's CSRF token is refused and changes nothing.
  // (The transcript and the clips, not the whole output: the line above may still be re-rendering a clip.)
  const state = (j: any) => JSON.stringify([j.output.transcript, j.output.clips.map((c: any) => [c.id, c.transcript_text])]);
  const before = state(await jobOf(key, id));
  const forged = await page.evaluate(async (id) => (await fetch(`/dashboard/jobs/${id}/corrections`, { method: "POST", body: new URLSearchParams({ find: "ok", with: "forged" }) })).status, id);
  expect(forged).toBe(403);

  // Another organisation's session sees no such job and cannot edit, delete or poll it.
  const other = await signedInPage(browser, app, "editor-intruder");
  const seen = await other.goto(`${app.baseUrl}/dashboard/jobs/${id}`);
  expect(seen?.status()).toBe(404);
  expect((await other.goto(`${app.baseUrl}/dashboard/jobs/${id}/renders.json`))?.status()).toBe(404);
  // (Posted with the session's cookie from outside the page: the Jobs page's CSP lets no script fetch.)
  await other.goto(`${app.baseUrl}/dashboard/jobs`);
  const csrf = await other.locator('input[name="csrf"]').first().inputValue();
  const post = async (path: string, form: Record<string, string>) => {
    const res = await other.request.post(`${app.baseUrl}${path}`, { form: { csrf, ...form }, maxRedirects: 0 });
    return `${res.status()} ${res.headers().location}`;
  };
  const intruded = [
    await post(`/dashboard/jobs/${id}/corrections`, { find: "ok", with: "intruded" }),
    await post(`/dashboard/jobs/${id}/clips/${first.id}/delete`, {}),
    await post(`/dashboard/jobs/${id}/clips`, { start_time: "0", end_time: "20" }),
    await post(`/dashboard/jobs/${id}/clips/${first.id}/renders`, { caption_style: "boxed" }),
  ];
  expect(intruded).toEqual(Array(4).fill("303 /dashboard/jobs"));
  expect(state(await jobOf(key, id))).toBe(before);
  await other.close();
  await page.close();
}, 600_000);

test("without JavaScript, a sandbox job's page finds and replaces across the episode, deletes a clip and names and merges speakers with plain forms", async () => {
  app ??= await startAppliance({ env: TENTH });
  const key = app.key("editor-nojs");
  const submitted = (await app.api("POST", "/v1/jobs", { key, body: VIDEO_BODY })).json;
  const done = await eventually(() => jobOf(key, submitted.id), (j) => j.status === "complete", { timeoutMs: 60_000, what: "the sandbox job" });
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  const { id: org } = ensureOrg(app.ctx.db, "editor-nojs", app.ctx.clock);
  await page.goto(loginUrl(app.baseUrl, issueLoginToken(app.ctx.db, app.ctx.clock, org).token));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.goto(`${app.baseUrl}/dashboard/jobs/${done.id}`);
  // A sandbox job has no word timings: no sentences, no transcript to select from, and the page says so.
  expect(await page.locator("#editor").textContent()).toContain("no word timings");
  expect(await page.locator("#transcript").count()).toBe(0);
  await page.getByLabel("Find", { exact: true }).fill("bus shelter");
  await page.getByLabel("Replace with").fill("tram stop");
  await page.getByRole("button", { name: "Replace everywhere" }).click();
  expect(await notice(page)).toContain("Correction saved");
  const corrected = (await jobOf(key, done.id)).output;
  expect(JSON.stringify(corrected)).not.toMatch(/bus shelter/i);
  expect(corrected.clips[0].hook).toContain("tram stop");
  // The same again: nothing left to change, and the page says so.
  await page.getByLabel("Find", { exact: true }).fill("bus shelter");
  await page.getByLabel("Replace with").fill("tram stop");
  await page.getByRole("button", { name: "Replace everywhere" }).click();
  expect(await notice(page)).toContain("Nothing to change");
  await card(page, 2).getByText("Delete clip").first().click();
  await card(page, 2).getByRole("button", { name: "Delete clip 2" }).click();
  expect(await notice(page)).toContain("Clip deleted");
  expect((await jobOf(key, done.id)).output.clips.map((c: { id: string }) => c.id)).toEqual([done.output.clips[0].id, ...done.output.clips.slice(2).map((c: { id: string }) => c.id)]);
  // Speakers: a voice named, a name another voice has refused, then the two voices said to be one person.
  const voice = (name: string) => page.locator("#speakers li", { has: page.locator("strong", { hasText: new RegExp(`^${name}$`) }) });
  await page.getByLabel("Name for Speaker 1").fill("Nora Vance");
  await voice("Speaker 1").getByRole("button", { name: "Save name" }).click();
  expect(await notice(page)).toContain("Speakers saved");
  const named = (await jobOf(key, done.id)).output;
  expect(new Set(named.transcript.map((t: { speaker: string }) => t.speaker))).toEqual(new Set(["Nora Vance", "Speaker 2"]));
  expect(await page.getByLabel("Name for Nora Vance").inputValue()).toBe("Nora Vance");
  await page.getByLabel("Name for Speaker 2").fill("nora vance");
  await voice("Speaker 2").getByRole("button", { name: "Save name" }).click();
  expect(await notice(page)).toContain("Speaker change refused");
  expect((await jobOf(key, done.id)).output).toEqual(named);
  await page.screenshot({ path: join(SCREENSHOTS, "editor-sandbox-speakers-390.png"), fullPage: true });
  await page.getByLabel("Speaker 2 is the same person as").selectOption("Nora Vance");
  await voice("Speaker 2").getByRole("button", { name: "Merge" }).click();
  expect(await notice(page)).toContain("Speakers saved");
  expect(new Set((await jobOf(key, done.id)).output.transcript.map((t: { speaker: string }) => t.speaker))).toEqual(new Set(["Nora Vance"]));
  expect(await page.locator("#speakers li").count()).toBe(1);
  await page.screenshot({ path: join(SCREENSHOTS, "editor-sandbox-nojs-390.png"), fullPage: true });
  await context.close();
}, 120_000);

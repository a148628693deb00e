/**
 * The language-model editor against a real local HTTP server that speaks the OpenAI chat
 * protocol (POST /v1/chat/completions): a good answer, a malformed one, a slow one, an HTTP error
 * and an answer that is not grounded in the transcript. Every failure must leave the extractive
 * result and say so in `editor`, `warnings` and each clip's `reason`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../../../src/config.ts";
import { completionsUrl } from "../../../../src/inference/llm-chat.ts";
import { analyzeTranscript } from "../../../../src/pipeline/highlights/analysis.ts";
import { selectClips } from "../../../../src/pipeline/highlights/select-clips.ts";
import { planHighlights } from "../../../../src/pipeline/highlights/plan.ts";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_REPLY_BYTES } from "../../../../src/inference/llm-chat.ts";
import { writeExports } from "../../../../src/pipeline/exports.ts";
import { asrTranscript } from "../../../helpers/asr-fixture.ts";
import { TreeMemorySampler } from "../../../helpers/process-memory.ts";

type Reply = { status?: number; body?: string; content?: string; hold?: boolean; hugeBytes?: number };

const t = asrTranscript("rooftop-hours");
const a = analyzeTranscript(t);
// What planHighlights offers the editor for 2 clips to post: the top 4 extractive clips.
const pool = selectClips(t, { count: 4, analysis: a });

let reply: Reply = {};
/** A chat completion whose content never ends, produced a chunk at a time as the client reads (the server holds none of it). */
let streamedBytes = 0;
function endlessReply(total: number): ReadableStream<Uint8Array> {
  const head = new TextEncoder().encode('{"choices":[{"message":{"content":"');
  streamedBytes = 0;
  return new ReadableStream({
    pull(controller) {
      if (streamedBytes >= total) return controller.close();
      const chunk = streamedBytes === 0 ? head : new Uint8Array(256 * 1024).fill(0x61);
      streamedBytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
}
const requests: { path: string; auth: string | null; body: any }[] = [];
const held: Array<() => void> = [];
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const body = await req.json().catch(() => null);
      requests.push({ path: url.pathname, auth: req.headers.get("authorization"), body });
      if (url.pathname !== "/v1/chat/completions" || req.method !== "POST") return new Response("not found", { status: 404 });
      if (reply.hold) await new Promise<void>((resolve) => held.push(resolve));
      if (reply.hugeBytes) return new Response(endlessReply(reply.hugeBytes), { headers: { "content-type": "application/json" } });
      if (reply.status) return new Response(reply.body ?? "error", { status: reply.status });
      if (reply.body !== undefined) return new Response(reply.body, { headers: { "content-type": "application/json" } });
      return Response.json({
        id: "chatcmpl-1",
        object: "chat.completion",
        model: body?.model,
        choices: [{ index: 0, message: { role: "assistant", content: reply.content ?? "" }, finish_reason: "stop" }],
      });
    },
  });
});
afterAll(() => {
  for (const release of held) release();
  server.stop(true);
});

const llm = (timeoutMs = 30_000) => ({ url: `http://127.0.0.1:${server.port}/v1`, model: "test-editor", key: "sekret", timeoutMs });
const plan = (timeoutMs?: number) => planHighlights(t, { embedder: null, count: 2, llm: llm(timeoutMs) });

/** A grounded answer: the second and first candidates, with hooks and quotes copied from them. */
function goodAnswer() {
  const pick = [pool[1]!, pool[0]!];
  return {
    clips: pick.map((c, i) => ({
      candidate: i === 0 ? 1 : 0,
      hook: c.hook,
      pull_quote: c.pull_quote,
      title: i === 0 ? "when the bees swarmed the bus shelter" : "Keeping Bees on an Apartment Roof",
      description: "A beekeeper remembers the day a colony left the roof. It ends well.",
      hashtags: ["#Beekeeping", "#UrbanBees", "#RooftopHours"],
    })),
    episode_title: "Keeping Bees on a City Roof",
    summary: "Theo Marsh tells how he came to keep bees on an apartment roof. “Everything went wrong first.”",
    chapter_titles: a.chapters.map((_, i) => `Chapter Topic ${i + 1}`),
  };
}

describe("language-model editor over the OpenAI chat protocol", () => {
  test("a grounded answer picks, orders and titles the clips and writes the notes", async () => {
    reply = { content: JSON.stringify(goodAnswer()) };
    requests.length = 0;
    const p = await plan();
    expect(p.editor).toBe("llm:test-editor");
    expect(requests).toHaveLength(1);
    expect(requests[0]!.path).toBe("/v1/chat/completions");
    expect(requests[0]!.auth).toBe("Bearer sekret");
    expect(requests[0]!.body.model).toBe("test-editor");
    expect(requests[0]!.body.messages.map((m: any) => m.role)).toEqual(["system", "user"]);
    expect(requests[0]!.body.messages[1].content).toContain(pool[3]!.transcript_text);
    expect(p.clips.map((c) => c.start_time)).toEqual([pool[1]!.start_time, pool[0]!.start_time]);
    expect(p.clips.map((c) => c.rank)).toEqual([1, 2]);
    // Times are the candidates' own, so still on sentence edges; titles set in title case.
    expect(p.clips[0]!.end_time).toBe(pool[1]!.end_time);
    expect(p.clips[0]!.title).toBe("When the Bees Swarmed the Bus Shelter");
    expect(p.clips[0]!.reason).toContain("chosen and written by test-editor (was rank 2)");
    expect(p.showNotes.split("\n")[0]).toBe("# Keeping Bees on a City Roof");
    expect(p.showNotes).toContain("Theo Marsh tells how he came to keep bees");
    expect(p.showNotes).toContain("Chapter Topic 1");
    expect(p.warnings.some((w) => w.includes("language-model"))).toBe(false);
  });

  test("an answer wrapped in a Markdown fence is still read", async () => {
    reply = { content: "```json\n" + JSON.stringify(goodAnswer()) + "\n```" };
    expect((await plan()).editor).toBe("llm:test-editor");
  });

  async function expectFallback(why: RegExp) {
    const p = await plan(reply.hold ? 300 : undefined);
    // Exactly what the stage picks with no editor configured.
    const extractive = selectClips(t, { count: 2, analysis: a });
    expect(p.editor).toMatch(/^extractive \(llm:test-editor failed: /);
    expect(p.editor).toMatch(why);
    expect(p.clips.map((c) => [c.start_time, c.hook, c.pull_quote, c.title])).toEqual(extractive.map((c) => [c.start_time, c.hook, c.pull_quote, c.title]));
    for (const c of p.clips) expect(c.reason).toContain("llm:test-editor failed");
    expect(p.warnings.some((w) => w.startsWith("language-model editor failed"))).toBe(true);
    return p;
  }

  test("a malformed response (not JSON) falls back to the extractive result and says so", async () => {
    reply = { body: "<html>upstream hiccup</html>" };
    await expectFallback(/malformed: response is not JSON/);
  });

  test("a model answer that is not JSON falls back", async () => {
    reply = { content: "Sure! Here are some great titles for your clips." };
    await expectFallback(/malformed: the model's answer is not JSON/);
  });

  test("an answer of the wrong shape fails zod validation and falls back", async () => {
    reply = { content: JSON.stringify({ ...goodAnswer(), clips: [{ candidate: 0 }] }) };
    await expectFallback(/does not match the schema/);
  });

  test("a slow response times out and falls back", async () => {
    reply = { hold: true };
    const started = performance.now();
    await expectFallback(/timeout: no answer within 300 ms/);
    expect(performance.now() - started).toBeLessThan(5000);
    for (const release of held.splice(0)) release();
    reply = {};
  });

  test("an HTTP error falls back", async () => {
    reply = { status: 503, body: "model loading" };
    await expectFallback(/http: HTTP 503: model loading/);
  });

  test("a paraphrased pull quote is not verbatim: falls back", async () => {
    const answer = goodAnswer();
    answer.clips[0]!.pull_quote = "The bees swarmed onto a bus shelter in front of everyone.";
    reply = { content: JSON.stringify(answer) };
    await expectFallback(/pull quote is not a verbatim sentence of the clip/);
  });

  test("a hook taken from outside the clip falls back", async () => {
    const answer = goodAnswer();
    answer.clips[0]!.hook = pool[0]!.hook; // candidate 1's clip does not contain candidate 0's hook
    reply = { content: JSON.stringify(answer) };
    await expectFallback(/hook is not verbatim copy of the clip/);
  });

  test("an invented quotation in the summary, or a speaker label, falls back", async () => {
    reply = { content: JSON.stringify({ ...goodAnswer(), summary: "Theo says “bees are the best pets in the world” to everyone." }) };
    await expectFallback(/summary quotes words not said/);
    reply = { content: JSON.stringify({ ...goodAnswer(), episode_title: "Speaker 1 and Theo on Bees" }) };
    await expectFallback(/speaker label/);
  });

  test("markup in the model's titles and summary reaches neither the notes, chapters.json nor the timeline", async () => {
    const answer = goodAnswer();
    answer.episode_title = '<img src=x onerror="alert(1)">Keeping Bees';
    answer.summary = "Theo Marsh tells how he came to keep bees on an apartment roof. <script>alert(document.cookie)</script>[Read more](javascript:alert(1)) about it.";
    answer.chapter_titles = answer.chapter_titles.map((x, i) => (i === 0 ? `<b onclick="x()">${x}</b>` : x));
    answer.clips[0]!.title = "<a href=//evil.example>Swarm</a> on the Shelter";
    answer.clips[0]!.description = "A beekeeper remembers the day a colony left the roof. <iframe src=//evil.example></iframe>";
    reply = { content: JSON.stringify(answer) };
    const p = await plan();
    expect(p.editor).toBe("llm:test-editor");
    expect(p.showNotes).not.toMatch(/<|\]\(|javascript:|alert|iframe|evil/);
    expect(p.showNotes.split("\n")[0]).toBe("# Keeping Bees");
    expect(p.showNotes).toContain("roof. Read more about it.");
    expect(p.showNotes).toContain("Chapter Topic 1");
    expect(p.clips[0]!.title).toBe("Swarm on the Shelter");
    expect(p.clips[0]!.description).toBe("A beekeeper remembers the day a colony left the roof.");
    const dir = mkdtempSync(join(tmpdir(), "llm-exports-"));
    try {
      // What the notes stage hands the exports: the notes' title, the clips, the chapters.
      writeExports(dir, {
        title: '<img src=x onerror="alert(1)">Keeping Bees',
        words: t.words,
        segments: t.segments,
        speakerNames: t.speakerNames,
        chapters: [{ start: 0, title: "<script>x()</script>Intro" }],
        clips: p.clips,
        source: { name: "episode.mp3", durationSeconds: 600, hasVideo: false },
      });
      const chapters = JSON.parse(readFileSync(join(dir, "chapters.json"), "utf8"));
      expect(chapters.title).toBe("Keeping Bees");
      expect(chapters.chapters[0].title).toBe("Intro");
      const otio = readFileSync(join(dir, "timeline.otio"), "utf8");
      expect(otio).not.toMatch(/[<>]/);
      expect(JSON.parse(otio).name).toBe("Keeping Bees");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an answer that is only markup falls back", async () => {
    reply = { content: JSON.stringify({ ...goodAnswer(), episode_title: "<b></b>" }) };
    await expectFallback(/episode title is only markup/);
  });

  test("a 1.5 GB reply is abandoned once past the cap while it streams, with memory bounded", async () => {
    reply = { hugeBytes: 1.5 * 1024 ** 3 };
    // Bun runs a folder's test files in one process: garbage an earlier file left (whisper.cpp's
    // buffers) would otherwise be counted as this reply's growth.
    Bun.gc(true);
    const sampler = new TreeMemorySampler({ intervalMs: 20 });
    sampler.mark("baseline");
    await Bun.sleep(100);
    sampler.mark("reply");
    const started = performance.now();
    await expectFallback(/too_large: the reply is over 1048576 bytes/);
    const peaks = await sampler.stop();
    reply = {};
    // The server stops producing once the client hangs up: nothing near the whole reply was sent.
    expect(streamedBytes).toBeLessThan(64 * MAX_REPLY_BYTES);
    const baseline = peaks.byLabel.get("baseline")!.total;
    expect(peaks.byLabel.get("reply")!.total - baseline).toBeLessThan(150 * 1024 ** 2);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  test("an unreachable endpoint falls back", async () => {
    const p = await planHighlights(t, { embedder: null, count: 2, llm: { url: "http://127.0.0.1:9/v1", model: "test-editor", timeoutMs: 2000 } });
    expect(p.editor).toMatch(/^extractive \(llm:test-editor failed: network: /);
  });
});

describe("configuration", () => {
  test("the editor is off by default and configured by CLIPYARD_LLM_*", () => {
    expect(loadConfig({}).llm).toBeUndefined();
    expect(loadConfig({ CLIPYARD_LLM_URL: "http://10.0.0.5:11434/v1", CLIPYARD_LLM_MODEL: "llama3.1:8b" }).llm).toEqual({
      url: "http://10.0.0.5:11434/v1",
      model: "llama3.1:8b",
      key: undefined,
      timeoutMs: 60_000,
    });
    expect(() => loadConfig({ CLIPYARD_LLM_URL: "http://10.0.0.5:11434/v1" })).toThrow(/CLIPYARD_LLM_MODEL/);
    expect(completionsUrl("http://h:8000/v1/")).toBe("http://h:8000/v1/chat/completions");
    expect(completionsUrl("http://h:8080/v1/chat/completions")).toBe("http://h:8080/v1/chat/completions");
  });
});

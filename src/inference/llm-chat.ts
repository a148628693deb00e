/**
 * The one adapter over an OpenAI-compatible chat-completions endpoint (Ollama, llama.cpp server,
 * vLLM on the LAN). It asks for a JSON object and returns it parsed, or throws a ChatError saying
 * what went wrong (timeout, HTTP status, malformed body), so the caller can fall back and say why.
 */
import { z } from "zod";

export interface ChatConfig {
  /** Base URL ("http://host:11434/v1") or the full ".../chat/completions" URL. */
  url: string;
  model: string;
  key?: string;
  timeoutMs: number;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type ChatErrorKind = "timeout" | "http" | "network" | "malformed" | "too_large";

/**
 * The editor's whole answer (a few clips' copy, a summary, chapter titles) is a few kB; a reply past
 * this is not one, and reading it whole would hold it all in memory (a 1.5 GB reply peaked at 1.85 GB).
 */
export const MAX_REPLY_BYTES = 1 << 20;

export class ChatError extends Error {
  constructor(
    readonly kind: ChatErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "ChatError";
  }
}

const ChatResponse = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1),
});

export function completionsUrl(url: string): string {
  const base = url.replace(/\/+$/, "");
  return /\/chat\/completions$/.test(base) ? base : `${base}/chat/completions`;
}

/** Models often wrap JSON in a Markdown fence even when asked not to. */
function unfence(content: string): string {
  const m = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(content);
  return m ? m[1]! : content;
}

/** The body as text, read as it streams and abandoned (the connection closed) once past `maxBytes`. */
async function boundedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new ChatError("too_large", `the reply is over ${maxBytes} bytes; reading stopped there`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** One chat completion whose answer must be a JSON object; returns it parsed (not yet validated). */
export async function chatJson(cfg: ChatConfig, messages: ChatMessage[], signal?: AbortSignal): Promise<unknown> {
  const timeout = AbortSignal.timeout(cfg.timeoutMs);
  const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
  let res: Response;
  let text: string;
  try {
    res = await fetch(completionsUrl(cfg.url), {
      method: "POST",
      headers: { "content-type": "application/json", ...(cfg.key ? { authorization: `Bearer ${cfg.key}` } : {}) },
      body: JSON.stringify({ model: cfg.model, messages, temperature: 0.2, stream: false, response_format: { type: "json_object" } }),
      signal: combined,
    });
    text = await boundedText(res, MAX_REPLY_BYTES);
  } catch (e) {
    if (e instanceof ChatError) throw e;
    // The job itself was cancelled: not the model's failure, so not a reason to fall back.
    if (signal?.aborted) throw e;
    if (timeout.aborted) throw new ChatError("timeout", `no answer within ${cfg.timeoutMs} ms`);
    throw new ChatError("network", (e as Error).message);
  }
  if (!res.ok) throw new ChatError("http", `HTTP ${res.status}: ${text.slice(0, 200)}`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ChatError("malformed", `response is not JSON: ${text.slice(0, 120)}`);
  }
  const parsed = ChatResponse.safeParse(body);
  if (!parsed.success) throw new ChatError("malformed", `not a chat completion: ${parsed.error.issues[0]!.message}`);
  try {
    return JSON.parse(unfence(parsed.data.choices[0]!.message.content));
  } catch {
    throw new ChatError("malformed", `the model's answer is not JSON: ${parsed.data.choices[0]!.message.content.slice(0, 120)}`);
  }
}

import { readdirSync, readFileSync } from "node:fs";

/** Command name, state and parent of a process, from /proc (Linux). */
export function procStat(pid: number): { comm: string; state: string; ppid: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may itself hold spaces or parentheses: split after the last ')'.
    const close = text.lastIndexOf(")");
    const [state, ppid] = text.slice(close + 2).split(" ");
    return { comm: text.slice(text.indexOf("(") + 1, close), state: state!, ppid: Number(ppid) };
  } catch {
    return undefined;
  }
}

/** Every process whose parent is `pid`. */
export function childrenOf(pid: number): Array<{ pid: number; state: string; comm: string }> {
  const out = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = procStat(Number(name));
    if (stat && stat.ppid === pid) out.push({ pid: Number(name), state: stat.state, comm: stat.comm });
  }
  return out;
}

/** Still doing work: it exists and is not a zombie waiting to be reaped. */
export function isWorking(pid: number): boolean {
  const s = procStat(pid);
  return !!s && s.state !== "Z" && s.state !== "X";
}

/** Polls `read` until it gives a truthy value, or fails naming `what` after timeoutMs. */
export async function until<T>(what: string, read: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/**
 * The mechanism behind "children die with the appliance": a process running ffmpeg through the
 * appliance's runner is killed with SIGKILL (no handler runs), and the ffmpeg, which writes nothing
 * that could fail on a broken pipe, must end within seconds rather than run out its two minutes.
 */
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { childrenOf, isWorking, until } from "../helpers/procfs.ts";

const orphans: number[] = [];
afterEach(() => {
  // Only processes this test started, by pid: a failed run must not leave its ffmpeg behind.
  for (const pid of orphans.splice(0)) if (isWorking(pid)) process.kill(pid, "SIGKILL");
});

test("an ffmpeg started by the appliance dies when the appliance is killed with SIGKILL", async () => {
  const parent = Bun.spawn(["bun", "run", join(import.meta.dir, "orphan-parent.ts")], { stdout: "pipe", stderr: "inherit" });
  const ffmpeg = await until("ffmpeg to start", () => childrenOf(parent.pid).find((c) => c.comm === "ffmpeg"), 20_000);
  orphans.push(ffmpeg.pid);
  expect(isWorking(ffmpeg.pid)).toBe(true);
  parent.kill("SIGKILL");
  await parent.exited;
  await until("ffmpeg to die with its parent", () => !isWorking(ffmpeg.pid), 5_000);
}, 40_000);

/**
 * Child processes (ffmpeg, the Python speech worker, yt-dlp) must not outlive the appliance: after a
 * kill -9 an orphaned ffmpeg keeps encoding for minutes and a new appliance starts the same work
 * again beside it. Linux's parent-death signal does this in the kernel, so it holds even when the
 * appliance gets no chance to clean up; Bun cannot call prctl itself, so util-linux's setpriv sets it
 * in the child and then execs the real command (same pid, nothing stays in between).
 */
let setpriv: string | null | undefined;

function findSetpriv(): string | null {
  if (setpriv === undefined) setpriv = process.platform === "linux" ? Bun.which("setpriv") : null;
  return setpriv;
}

/**
 * The command line that runs `cmd` so that the kernel kills it (SIGKILL) when this process dies.
 * Where setpriv is missing (not Linux, or no util-linux) the command runs as it is.
 */
export function diesWithAppliance(cmd: string[]): string[] {
  const bin = findSetpriv();
  return bin ? [bin, "--pdeathsig", "KILL", "--", ...cmd] : cmd;
}

/** What a finished command printed, and how it exited. */
export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion and captures both streams. Never throws: a command that cannot be
 * started (not found, not executable) comes back as exit 127 with the reason in stderr, so callers
 * that report on optional tools (doctor, the speech runtime) handle one shape.
 */
export async function capture(cmd: string[], env?: Record<string, string>): Promise<Captured> {
  try {
    const p = Bun.spawn(cmd, { stdout: "pipe", stderr: "pipe", stdin: "ignore", env: env ? { ...process.env, ...env } : undefined });
    const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, stdout, stderr };
  } catch (e) {
    return { code: 127, stdout: "", stderr: (e as Error).message };
  }
}

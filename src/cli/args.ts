/** Minimal `--name value` / `--flag` parser for the CLI; positional arguments stay in order. */
export function parseArgs(argv: string[], flags: string[] = []): { opts: Record<string, string | true>; rest: string[] } {
  const opts: Record<string, string | true> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--")) {
      const [name, inline] = a.slice(2).split("=", 2) as [string, string | undefined];
      if (inline !== undefined) opts[name] = inline;
      else if (flags.includes(name)) opts[name] = true;
      else if (i + 1 < argv.length) opts[name] = argv[++i]!;
      else throw new Error(`--${name} needs a value`);
    } else rest.push(a);
  }
  return { opts, rest };
}

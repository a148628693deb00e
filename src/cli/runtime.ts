import { resolve } from "node:path";
import { installSpeechRuntime, SpeechRuntimeInstallError } from "../inference/speech-runtime/install.ts";
import { describePackages, speechRuntimeStatus, type SpeechRuntimeStatus } from "../inference/speech-runtime/status.ts";
import { speechRuntimeDir } from "../inference/speech-runtime/runtime.ts";
import { parseArgs } from "./args.ts";

const USAGE = `usage:
  clipyard runtime install [--python PATH] [--dir DIR] [--force] [--gpu]
      create the speech runtime: a Python venv with the pinned faster-whisper, CTranslate2 and
      ONNX Runtime (a no-op when it is already current; --force rebuilds it); --gpu adds the CUDA 12
      libraries (cuBLAS, cuDNN 9, about 1.3 GB) that recognition on an NVIDIA GPU needs
  clipyard runtime status [--dir DIR] [--json]
      where the runtime is, whether it matches this clipyard's requirements, its Python and packages
      (exit 0 only when ready)
`;

/** Options of one subcommand, or null (after printing usage) when argv has anything else. */
function options(argv: string[], flags: string[], valued: string[]): Record<string, string | true> | null {
  try {
    const { opts, rest } = parseArgs(argv, flags);
    const ok = rest.length === 0 && Object.entries(opts).every(([k, v]) => (flags.includes(k) ? v === true : valued.includes(k) && typeof v === "string"));
    if (ok) return opts;
  } catch {}
  process.stderr.write(USAGE);
  return null;
}

const short = (sha: string | null) => (sha ? sha.slice(0, 12) : "none");

function requirementsLine(s: SpeechRuntimeStatus): string {
  const r = s.requirements;
  if (r.current === null) return "not managed (CLIPYARD_SPEECH_PYTHON)";
  if (r.current) return `current (sha256 ${short(r.expectedSha256)})`;
  if (s.state === "missing") return "not installed";
  return r.installedSha256 ? `outdated (installed ${short(r.installedSha256)}, this clipyard pins ${short(r.expectedSha256)})` : `no stamp (this clipyard pins ${short(r.expectedSha256)})`;
}

function printStatus(s: SpeechRuntimeStatus): void {
  const rows: Array<[string, string]> = [
    ["folder", `${s.dir} (${s.dirSource})`],
    ["python", `${s.python}${s.pythonFromOverride ? " (CLIPYARD_SPEECH_PYTHON)" : ""}${s.state === "missing" ? " (not found)" : s.pythonVersion ? ` (Python ${s.pythonVersion})` : ""}`],
    ["requirements", requirementsLine(s)],
    ["cuda libraries", s.gpuRequirements.current === null ? "not installed (clipyard runtime install --gpu adds them)" : s.gpuRequirements.current ? `current (sha256 ${short(s.gpuRequirements.expectedSha256)})` : `outdated (run clipyard runtime install --gpu)`],
  ];
  if (s.state !== "missing") rows.push(["packages", describePackages(s)]);
  if (s.problem) rows.push(["problem", s.problem]);
  if (s.fix) rows.push(["fix", s.fix]);
  process.stdout.write(`speech runtime: ${s.state}\n${rows.map(([k, v]) => `  ${k.padEnd(13)} ${v}`).join("\n")}\n`);
}

async function status(argv: string[]): Promise<number> {
  const opts = options(argv, ["json"], ["dir"]);
  if (!opts) return 2;
  const s = await speechRuntimeStatus({ dir: typeof opts.dir === "string" ? resolve(opts.dir) : undefined });
  if (opts.json) process.stdout.write(JSON.stringify(s, null, 2) + "\n");
  else printStatus(s);
  return s.state === "ready" ? 0 : 1;
}

async function install(argv: string[]): Promise<number> {
  const opts = options(argv, ["force", "gpu"], ["python", "dir"]);
  if (!opts) return 2;
  const say = (line: string) => process.stderr.write(`[runtime] ${line}\n`);
  const override = process.env.CLIPYARD_SPEECH_PYTHON;
  if (override) say(`note: CLIPYARD_SPEECH_PYTHON is set (${override}); live jobs run that Python, not this runtime`);
  try {
    await installSpeechRuntime({
      dir: typeof opts.dir === "string" ? resolve(opts.dir) : speechRuntimeDir(),
      python: typeof opts.python === "string" ? opts.python : undefined,
      force: opts.force === true,
      gpu: opts.gpu === true,
      onProgress: say,
    });
    return 0;
  } catch (err) {
    if (!(err instanceof SpeechRuntimeInstallError)) throw err;
    process.stderr.write(`clipyard runtime install: ${err.message}\n`);
    return 1;
  }
}

/** `clipyard runtime install|status`: the Python speech runtime live jobs transcribe with. */
export default async function runtime(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "install") return install(rest);
  if (sub === "status") return status(rest);
  process.stderr.write(USAGE);
  return sub === "-h" || sub === "--help" ? 0 : 2;
}

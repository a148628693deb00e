import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { loadConfig } from "../../config.ts";

/**
 * The speech runtime is the Python environment that runs CTranslate2 (Whisper) and ONNX Runtime
 * (Silero). `clipyard runtime install` creates it in speechRuntimeDir(); CLIPYARD_SPEECH_PYTHON points
 * live jobs at a Python of the operator's own instead.
 */
export const INSTALL_COMMAND = "clipyard runtime install";

/** Where the runtime lives: config.speechDir (a checkout's .vendor/speech-venv, or beside the binary's data directory). */
export function speechRuntimeDir(env: Record<string, string | undefined> = process.env): string {
  return loadConfig(env).speechDir;
}

export function venvPython(dir: string): string {
  return resolve(dir, "bin", "python");
}

export class SpeechRuntimeMissingError extends Error {
  constructor(path: string, fromOverride: boolean) {
    super(
      fromOverride
        ? `speech runtime not found: CLIPYARD_SPEECH_PYTHON is ${path}, which does not exist; fix it, or unset it and run \`${INSTALL_COMMAND}\``
        : `speech runtime not found at ${path}; run \`${INSTALL_COMMAND}\` to create it`,
    );
    this.name = "SpeechRuntimeMissingError";
  }
}

/** The Python live jobs run: CLIPYARD_SPEECH_PYTHON if set, else the installed runtime's. */
export function configuredSpeechPython(env: Record<string, string | undefined> = process.env): { path: string; fromOverride: boolean } {
  const override = env.CLIPYARD_SPEECH_PYTHON;
  return override ? { path: override, fromOverride: true } : { path: venvPython(speechRuntimeDir(env)), fromOverride: false };
}

export function speechPython(env: Record<string, string | undefined> = process.env): string {
  const { path, fromOverride } = configuredSpeechPython(env);
  if (!existsSync(path)) throw new SpeechRuntimeMissingError(path, fromOverride);
  return path;
}

import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT_DIR } from "../../../../src/config.ts";
import { configuredSpeechPython, SpeechRuntimeMissingError, speechPython, speechRuntimeDir } from "../../../../src/inference/speech-runtime/runtime.ts";
import { installSpeechRuntime, isUpToDate, lockRuntime, REQUIREMENTS, REQUIREMENTS_SHA256 } from "../../../../src/inference/speech-runtime/install.ts";
import { speechRuntimeStatus } from "../../../../src/inference/speech-runtime/status.ts";

const tmp = () => mkdtempSync(join(tmpdir(), "clipyard-runtime-test-"));

/** A folder shaped like an installed runtime: a bin/python that is a shell script, and a stamp. */
function fakeRuntime(stamp: string | null, pythonScript = "#!/bin/sh\nexit 3\n"): string {
  const dir = tmp();
  mkdirSync(join(dir, "bin"));
  writeFileSync(join(dir, "bin", "python"), pythonScript);
  chmodSync(join(dir, "bin", "python"), 0o755);
  writeFileSync(join(dir, "pyvenv.cfg"), "home = /usr/bin\n");
  if (stamp !== null) writeFileSync(join(dir, ".requirements.sha256"), `${stamp}\n`);
  return dir;
}

describe("embedded requirements", () => {
  test("are the pinned file byte for byte, so stamps written by scripts/setup/asr.sh (sha256sum) stay valid", () => {
    const file = readFileSync(join(ROOT_DIR, "scripts/setup/asr-requirements.txt"));
    expect(REQUIREMENTS).toBe(file.toString("utf8"));
    expect(REQUIREMENTS_SHA256).toBe(new Bun.CryptoHasher("sha256").update(file).digest("hex"));
    expect(REQUIREMENTS).toContain("faster-whisper==");
  });
});

describe("where the runtime is", () => {
  test("a checkout keeps it in .vendor/speech-venv; CLIPYARD_SPEECH_DIR moves it; CLIPYARD_SPEECH_PYTHON wins", () => {
    expect(speechRuntimeDir({})).toBe(join(ROOT_DIR, ".vendor", "speech-venv"));
    expect(speechRuntimeDir({ CLIPYARD_SPEECH_DIR: "/srv/speech" })).toBe("/srv/speech");
    expect(configuredSpeechPython({ CLIPYARD_SPEECH_DIR: "/srv/speech" })).toEqual({ path: "/srv/speech/bin/python", fromOverride: false });
    expect(configuredSpeechPython({ CLIPYARD_SPEECH_DIR: "/srv/speech", CLIPYARD_SPEECH_PYTHON: "/opt/py/bin/python3" })).toEqual({ path: "/opt/py/bin/python3", fromOverride: true });
  });

  test("a missing runtime is an error that names the install command", () => {
    const empty = tmp();
    expect(() => speechPython({ CLIPYARD_SPEECH_DIR: empty })).toThrow(SpeechRuntimeMissingError);
    expect(() => speechPython({ CLIPYARD_SPEECH_DIR: empty })).toThrow(`speech runtime not found at ${join(empty, "bin", "python")}; run \`clipyard runtime install\``);
    expect(() => speechPython({ CLIPYARD_SPEECH_PYTHON: join(empty, "python3") })).toThrow("CLIPYARD_SPEECH_PYTHON is");
    const installed = fakeRuntime(REQUIREMENTS_SHA256);
    expect(speechPython({ CLIPYARD_SPEECH_DIR: installed })).toBe(join(installed, "bin", "python"));
  });
});

describe("install: the stamp decides", () => {
  test("a runtime stamped with the embedded requirements is up to date, and install does nothing", async () => {
    const dir = fakeRuntime(REQUIREMENTS_SHA256);
    expect(isUpToDate(dir)).toBe(true);
    const said: string[] = [];
    // A Python that does not exist proves nothing was spawned.
    const r = await installSpeechRuntime({ dir, python: "/nonexistent/python3", onProgress: (l) => said.push(l) });
    expect(r.changed).toBe(false);
    expect(said).toEqual([`speech runtime up to date (${dir})`]);
  });

  test("a stale or missing stamp means a rebuild, and a bad Python stops it before the old runtime is touched", async () => {
    for (const stamp of ["0".repeat(64), null]) {
      const dir = fakeRuntime(stamp);
      expect(isUpToDate(dir)).toBe(false);
      await expect(installSpeechRuntime({ dir, python: "/nonexistent/python3" })).rejects.toThrow("python not found: /nonexistent/python3");
      expect(existsSync(join(dir, "bin", "python"))).toBe(true);
    }
  });

  test("--force rebuilds even a current runtime", async () => {
    const dir = fakeRuntime(REQUIREMENTS_SHA256);
    await expect(installSpeechRuntime({ dir, python: "/nonexistent/python3", force: true })).rejects.toThrow("python not found");
  });

  test("a folder that is not a virtual environment is never deleted", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "notes.txt"), "mine");
    await expect(installSpeechRuntime({ dir })).rejects.toThrow("is not a Python virtual environment; refusing to replace it");
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");
  });

  test("a Python without venv support gets the apt-get hint", async () => {
    // Debian's python3 without python3-venv: the interpreter runs, `import ensurepip` fails.
    const stub = tmp();
    writeFileSync(join(stub, "ensurepip.py"), `raise ModuleNotFoundError("No module named 'ensurepip'", name="ensurepip")\n`);
    const python = join(stub, "python3");
    writeFileSync(python, `#!/bin/sh\nPYTHONPATH=${stub} exec python3 "$@"\n`);
    chmodSync(python, 0o755);
    const dir = join(tmp(), "speech-venv");
    await expect(installSpeechRuntime({ dir, python })).rejects.toThrow("apt-get install python3-venv");
    expect(existsSync(dir)).toBe(false);
  });
});

describe("install: one at a time per folder", () => {
  test("a live install's lock refuses a second one, which touches nothing", async () => {
    const dir = fakeRuntime(null);
    // This test process stands in for the installer that holds the lock.
    writeFileSync(`${dir}.lock`, `${process.pid}\n`);
    await expect(installSpeechRuntime({ dir, python: "/nonexistent/python3" })).rejects.toThrow(`another \`clipyard runtime install\` (pid ${process.pid}) is installing into ${dir}`);
    expect(existsSync(join(dir, "bin", "python"))).toBe(true);
    expect(readFileSync(`${dir}.lock`, "utf8")).toBe(`${process.pid}\n`);
  });

  test("a killed install's lock is taken over and released after", async () => {
    const dir = fakeRuntime(null);
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    writeFileSync(`${dir}.lock`, `${gone.pid}\n`);
    // Past the lock: the bad Python is what stops it now.
    await expect(installSpeechRuntime({ dir, python: "/nonexistent/python3" })).rejects.toThrow("python not found");
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });

  test("the lock is released when the install fails", async () => {
    const dir = join(tmp(), "fresh", "speech-venv");
    await expect(installSpeechRuntime({ dir, python: "/nonexistent/python3" })).rejects.toThrow("python not found");
    const release = lockRuntime(dir);
    release();
    expect(existsSync(`${dir}.lock`)).toBe(false);
  });
});

describe("status", () => {
  test("missing: names the folder and the command that creates it", async () => {
    const dir = join(tmp(), "speech-venv");
    const s = await speechRuntimeStatus({ dir });
    expect(s).toMatchObject({ state: "missing", dir, dirSource: "--dir", python: join(dir, "bin", "python"), pythonVersion: null, packages: null });
    expect(s.requirements).toEqual({ expectedSha256: REQUIREMENTS_SHA256, installedSha256: null, current: false });
    expect(s.fix).toBe(`clipyard runtime install --dir ${dir}`);
  });

  test("broken: a Python that cannot import the speech packages is not ready even with a current stamp", async () => {
    const dir = fakeRuntime(REQUIREMENTS_SHA256);
    const s = await speechRuntimeStatus({ dir });
    expect(s.state).toBe("broken");
    expect(s.requirements.current).toBe(true);
    expect(s.problem).toContain("cannot import the speech packages (exit 3");
    expect(s.fix).toBe(`clipyard runtime install --dir ${dir} --force`);
  });

  test("an operator's own Python (CLIPYARD_SPEECH_PYTHON) is judged by what it imports, not by a stamp", async () => {
    const dir = fakeRuntime(null);
    const s = await speechRuntimeStatus({ env: { CLIPYARD_SPEECH_PYTHON: join(dir, "bin", "python") } });
    expect(s).toMatchObject({ state: "broken", pythonFromOverride: true, dirSource: "checkout" });
    expect(s.requirements.current).toBeNull();
    expect(s.fix).toContain("unset CLIPYARD_SPEECH_PYTHON and run clipyard runtime install");
  });
});

import { expect, test } from "bun:test";
import { cpuCannotRun, missingCpuFlags } from "../../../src/inference/whisper-cpp-built.ts";

const X86_64_V3 = ["avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe"];
const info = { key: "k", source: "smart-whisper@0.8.1", march: "x86-64-v3", cpuFlags: X86_64_V3 };
// Flags lines as two real CPUs print them: a Xeon with AVX-512, and an Atom-class CPU with SSE4.2 only.
const XEON = "processor\t: 0\nflags\t\t: fpu vme sse sse2 ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt avx f16c rdrand hypervisor lahf_lm abm bmi1 avx2 smep bmi2 avx512f\nbugs\t\t: spectre_v1\n";
const ATOM = "processor\t: 0\nflags\t\t: fpu sse sse2 ssse3 cx16 sse4_1 sse4_2 movbe popcnt rdrand lahf_lm\n";

test("the CPU's missing instructions are read from /proc/cpuinfo's flags line", () => {
  expect(missingCpuFlags(X86_64_V3, XEON)).toEqual([]);
  expect(missingCpuFlags(X86_64_V3, ATOM)).toEqual(["avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm"]);
  // Whole names only: "avx512f" is not "avx".
  expect(missingCpuFlags(["avx"], "flags\t: sse avx512f\n")).toEqual(["avx"]);
  expect(missingCpuFlags(["avx2"], "no flags line here")).toEqual(["avx2"]);
});

test("a CPU without the built addon's instructions gets a reason naming them; one with them gets none", () => {
  expect(cpuCannotRun(info, () => XEON)).toBeUndefined();
  expect(cpuCannotRun(info, () => ATOM)).toBe("this CPU lacks avx, avx2, bmi1, bmi2, f16c, fma, abm, which the source-built addon (x86-64-v3) needs");
  expect(cpuCannotRun(info, () => {
    throw new Error("EACCES");
  })).toMatch(/unreadable \(EACCES\)/);
});

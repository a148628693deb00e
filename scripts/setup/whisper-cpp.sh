#!/usr/bin/env bash
# whisper.cpp with token probabilities and AVX2, built here from source into .vendor/whisper-cpp/
# (src/inference/whisper-cpp-built.ts loads it; docs/pipeline/transcribe.md, "In-process recognition": no
# prebuilt addon on npm gives token probabilities, and @fugood's is SSE only).
#
# The sources are npm's smart-whisper (whisper.cpp + ggml and a small N-API binding that returns each
# token's probability and times), node-addon-api (the C++ wrapper that binding is written with) and
# node-api-headers (Node-API's C headers), each pinned by version and sha512 below and checked before
# use. Built for x86-64-v3 (AVX2, FMA, F16C, BMI2: the CPUs of the last decade) and never for this
# CPU alone (-march=native), because the single executable carries the file to other machines; at run
# time it is used only where /proc/cpuinfo has those instructions, else the prebuilt SSE addon runs.
# The binding is patched (whisper-cpp.patch, below) before it is compiled.
# libstdc++ is linked in, so the file needs only glibc (2.36: Debian 12, Ubuntu 23.04 and later). Built
# once per key (this script's text, which holds the pins and flags, the patch, and the compiler's version); a second run with the same key does nothing.
# Optional: without a C/C++ compiler, or off linux-x64, it says so and leaves the prebuilt addon in use.
set -euo pipefail
cd "$(dirname "$0")/../.."

OUT=.vendor/whisper-cpp
SMART_WHISPER="smart-whisper@0.8.1 sha512-0DnhD6Hq7kTpWAJxv057o8rkcZ2Sv2/ZpJZJjj/DT+8Ll/zH5EHQM1lSwk+W15AvfDPD3K2ku+MD2KCXD51z5A=="
NODE_ADDON_API="node-addon-api@7.1.1 sha512-5m3bsyrjFWE1xf7nz7YXdN4udnVtXK6/Yfgn5qnahL6bCkf2yKt4k3nuTKAtT4r3IG8JNR2ncsIMdZuAzJjHQQ=="
NODE_API_HEADERS="node-api-headers@1.9.0 sha512-2oNILP4jXwRB4ywnYKjVk1YyJ96n2D4EOVJO6S3oYZ5PtbJrw3Yt9TpAuX3nBLMuzn74rnfGQrv13pS9vC+YiA=="
MARCH=x86-64-v3
# /proc/cpuinfo's names for x86-64-v3's instructions (LZCNT is "abm"); written to build.json for the loader.
CPU_FLAGS="avx avx2 bmi1 bmi2 f16c fma abm movbe"

say() { printf '[whisper-cpp] %s\n' "$*" >&2; }

if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  say "not built: only linux-x64 is built here ($(uname -s)-$(uname -m)); the prebuilt addon is used"
  exit 0
fi
for tool in gcc g++ npm openssl tar patch; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    say "not built: $tool is missing (apt-get install build-essential); the prebuilt SSE addon is used, without word probabilities"
    exit 0
  fi
done

KEY="$( { cat scripts/setup/whisper-cpp.sh scripts/setup/whisper-cpp.patch; g++ --version | head -n 1; } | sha256sum | cut -c1-16)"
if [ -f "$OUT/whisper.node" ] && grep -q "\"key\": \"$KEY\"" "$OUT/build.json" 2>/dev/null; then
  say "up to date ($OUT/whisper.node, key $KEY)"
  exit 0
fi

started=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for pin in "$SMART_WHISPER" "$NODE_ADDON_API" "$NODE_API_HEADERS"; do
  spec="${pin%% *}"; integrity="${pin#* }"; name="${spec%@*}"
  if ! tarball="$(cd "$work" && npm pack --silent "$spec" 2>"$work/npm.err" | tail -n 1)" || [ ! -f "$work/$tarball" ]; then
    say "could not fetch $spec from the npm registry: $(tail -n 3 "$work/npm.err")"
    exit 1
  fi
  actual="sha512-$(openssl dgst -sha512 -binary "$work/$tarball" | base64 -w0)"
  if [ "$actual" != "$integrity" ]; then
    say "refused: $spec from the registry has $actual, pinned $integrity"
    exit 1
  fi
  mkdir -p "$work/$name"
  tar -xzf "$work/$tarball" -C "$work/$name" --strip-components=1
done

sw="$work/smart-whisper"
# whisper-cpp.patch fixes three faults of the binding and adds a stop: it left whisper_context_params uninitialised
# apart from use_gpu (flash_attn and the DTW settings were stack garbage); it printed timings from the
# context even when loading failed (a null pointer: a crash instead of a rejected promise); and its
# progress callback read the segment list on the main thread while whisper_full was still growing it
# on the worker thread (a crash seen here: Bun segfaulted at 0x0 in a job). Progress now carries only
# the new segment's end time, read on the worker thread.
# And it takes `abort`, an Int32Array whose first element, once non-zero, makes whisper.cpp's abort
# callback stop the run (a cancelled job), which the binding never set.
# DTW token times (word times aligned as faster-whisper aligns them; src/pipeline/transcribe/dtw-word-times.ts):
# the model loads with an alignment heads preset as a third argument and each token returns its t_dtw
# (`dtw`, ms). In whisper.cpp's DTW itself, four changes so it aligns as OpenAI's timing.py and
# CTranslate2 do: the softmax over the window's audio only (it ran over the padding too), the task token
# after the language (it was left out), the window's whole audio (it stopped at the last timestamp
# token); and two guards: a window too short for the median filter keeps its tokens unaligned instead
# of failing an assertion (abort()), and the loop placing times no longer reads past the last segment.
patch -s -p1 -d "$sw" <scripts/setup/whisper-cpp.patch

common=(-O3 -DNDEBUG -march="$MARCH" -mtune=generic -fPIC -pthread -D_GNU_SOURCE -D_XOPEN_SOURCE=600
  -I"$sw/whisper.cpp/include" -I"$sw/whisper.cpp/ggml/include" -I"$sw/whisper.cpp/ggml/src" -I"$sw/whisper.cpp/src")
cxx=(-std=c++17 -fexceptions -DNAPI_CPP_EXCEPTIONS -DNAPI_VERSION=8 -DBUILDING_NODE_EXTENSION -DNODE_GYP_MODULE_NAME=whisper
  -I"$work/node-addon-api" -I"$work/node-api-headers/include" -I"$sw/whisper.cpp/examples")
sources=(whisper.cpp/src/whisper.cpp whisper.cpp/ggml/src/ggml.c whisper.cpp/ggml/src/ggml-alloc.c whisper.cpp/ggml/src/ggml-backend.c
  whisper.cpp/ggml/src/ggml-quants.c whisper.cpp/ggml/src/ggml-aarch64.c
  src/binding/binding.cc src/binding/common.cc src/binding/model.cc src/binding/transcribe.cc)
jobs="$(nproc 2>/dev/null || echo 2)"
objects=()
mkdir -p "$work/obj"
compile() {
  case "$1" in
    *.c) gcc -std=c11 "${common[@]}" -c "$sw/$1" -o "$2" ;;
    *) g++ "${common[@]}" "${cxx[@]}" -c "$sw/$1" -o "$2" ;;
  esac || touch "$work/failed"
}
for src in "${sources[@]}"; do
  obj="$work/obj/${src//\//_}.o"; objects+=("$obj")
  compile "$src" "$obj" &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
done
wait
[ ! -e "$work/failed" ] || { say "compile failed"; exit 1; }
# --exclude-libs keeps the static libstdc++'s symbols inside the addon: exported, they were bound by
# ONNX Runtime loaded after it (the in-process VAD) and Bun crashed at 0x0 in the next job.
g++ -shared -o "$work/whisper.node" "${objects[@]}" -pthread -static-libstdc++ -static-libgcc -Wl,--exclude-libs,ALL -Wl,--as-needed

mkdir -p "$OUT"
mv -f "$work/whisper.node" "$OUT/whisper.node.tmp" && mv -f "$OUT/whisper.node.tmp" "$OUT/whisper.node"
flags_json="$(printf '"%s",' $CPU_FLAGS)"
cat >"$OUT/build.json.tmp" <<JSON
{
  "key": "$KEY",
  "source": "${SMART_WHISPER%% *}",
  "integrity": "${SMART_WHISPER#* }",
  "march": "$MARCH",
  "cpuFlags": [${flags_json%,}],
  "compiler": "$(g++ --version | head -n 1)",
  "bytes": $(stat -c %s "$OUT/whisper.node")
}
JSON
mv -f "$OUT/build.json.tmp" "$OUT/build.json"
say "built $OUT/whisper.node ($(stat -c %s "$OUT/whisper.node") bytes, $MARCH) in $((SECONDS - started)) s"

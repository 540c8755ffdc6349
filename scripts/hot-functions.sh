#!/usr/bin/env bash
# Regenerates assets/hot-functions.txt: the functions of convo that `convo list` and
# `convo summary` run, as callgrind sees them in the release binary. build.rs hands the file to
# the linker (lld's --symbol-ordering-file) for release builds, so these functions sit together
# in the binary: a walk then touches a few hundred KiB of code instead of faulting in 64 KiB
# windows all over an 8 MiB text segment (peak RSS; see docs/performance.md, "Peak RSS").
#
# Names that no longer exist are ignored by the linker, new hot functions are simply not
# ordered: a stale file costs memory, never correctness. Rerun after large changes:
#   bash scripts/hot-functions.sh      (needs valgrind; about a minute)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is needed" >&2; exit 1; }
cargo build --release --locked
bin="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/convo"
work="$(mktemp -d)"
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin" demo-server --addr 127.0.0.1:0 --conversations 3000 --visitors 800 --fixed-times >"$work/server" 2>&1 &
server=$!
for _ in $(seq 50); do grep -q "API key" "$work/server" 2>/dev/null && break; sleep 0.1; done
base="$(grep -o 'http://127.0.0.1:[0-9]*' "$work/server" | head -1)"
export CONVO_API_KEY="$(grep 'API key' "$work/server" | awk '{print $3}')"
export CONVO_CONFIG=/nonexistent/convo-hot-functions.toml HOME="$work" XDG_DATA_HOME="$work/data"
n=0
run() {
  n=$((n + 1))
  valgrind --tool=callgrind --demangle=no --compress-strings=no --dump-instr=no \
    --callgrind-out-file="$work/cg.$n" "$bin" --base-url "$base" "$@" >/dev/null 2>&1 || true
}
run list conversations --all --format jsonl
run list conversations --all --format json
run list conversations --all --format csv
run list conversations
run list conversations --status open --all --format jsonl
run list visitors --all --format jsonl
run summary conversations
run summary conversations --by site --format json
run --version
python3 - "$work"/cg.* >assets/hot-functions.txt <<'PY'
import sys
seen = {}
for path in sys.argv[1:]:
    ob = None
    for line in open(path, errors="replace"):
        if line.startswith("ob="):
            ob = line[3:].strip()
        elif line.startswith("fn=") and ob is not None and ob.endswith("/convo"):
            name = line[3:].strip()
            if not name.startswith("0x"):  # code with no symbol
                seen.setdefault(name, None)
print("\n".join(seen))
PY
echo "assets/hot-functions.txt: $(wc -l <assets/hot-functions.txt) functions"

#!/usr/bin/env bash
# `L` in the browser as a user sees it, against `convo list --all` to /dev/null (issue 36).
#
# A demo server of ROWS conversations (2,000 visitors, fixed times); the browser in a detached
# tmux pane of COLSxLINES (status line off, so the pane is the whole terminal: tmux parses and
# keeps every frame the browser writes, as a terminal emulator does); `L` sent with send-keys
# and the pane polled (capture-pane) until its footer says `all N loaded`. Against it, the
# same walk by `convo list conversations --all --limit PAGE --format jsonl > /dev/null`. Both
# use one config: `page_size = PAGE`, `store = false` (no visitor sync competing; STORE=fresh
# gives each run a new, empty store instead). Runs alternate (list, L, list, L, …); it prints
# each run and the medians.
#
#   scripts/load-all-in-tmux.sh                 # 300,000 rows, page 100, 5 runs each
#   ROWS=100000 RUNS=3 scripts/load-all-in-tmux.sh
#   CONVO_BIN=target/release/convo POLL=0.02 scripts/load-all-in-tmux.sh
#
# Needs the release binary (`cargo build --release`) and tmux. Times are wall clock
# (bash's `$EPOCHREALTIME`): from just before send-keys to the first poll that sees the footer, so the
# figure carries up to one POLL of lateness (20 ms by default).
set -euo pipefail

cd "$(dirname "$0")/.."
BIN=${CONVO_BIN:-target/release/convo}
ROWS=${ROWS:-300000}
VISITORS=${VISITORS:-2000}
PAGE=${PAGE:-100}
RUNS=${RUNS:-5}
COLS=${COLS:-200}
LINES_=${LINES_:-50}
POLL=${POLL:-0.02}
STORE=${STORE:-false}

[ -x "$BIN" ] || { echo "no $BIN: cargo build --release" >&2; exit 1; }
command -v tmux >/dev/null || { echo "needs tmux" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "needs GNU time (/usr/bin/time)" >&2; exit 1; }

tmp=$(mktemp -d)
sock="convo-load-all-$$"
server_pid=
cleanup() {
    tmux -L "$sock" kill-server 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"
    rm -rf "$tmp"
}
trap cleanup EXIT

"$BIN" demo-server --conversations "$ROWS" --visitors "$VISITORS" --fixed-times \
    --addr 127.0.0.1:0 >"$tmp/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 600); do
    grep -q '^API key:' "$tmp/server.out" 2>/dev/null && break
    sleep 0.1
done
url=$(sed -n 's/^convo demo server listening on //p' "$tmp/server.out")
key=$(sed -n 's/^API key: //p' "$tmp/server.out")
[ -n "$url" ] && [ -n "$key" ] || { cat "$tmp/server.out" >&2; exit 1; }

# Microseconds since the epoch (bash's own clock: no process started).
now() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }
ms() { echo $((($2 - $1 + 500) / 1000)); }

config() {
    # A home of its own per run: a fresh store when STORE=fresh, nothing kept across runs.
    local home="$tmp/home-$1"
    rm -rf "$home" && mkdir -p "$home"
    if [ "$STORE" = fresh ]; then
        printf 'page_size = %s\n' "$PAGE" >"$home/convo.toml"
    else
        printf 'page_size = %s\nstore = false\n' "$PAGE" >"$home/convo.toml"
    fi
    echo "$home"
}

# CPU time (user + system, ms) of a process so far; a zombie still has its times.
cpu_ms() { awk '{ sub(/.*\) /, ""); print ($12 + $13) * 10 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Prints "wall-ms cpu-ms" of one list walk (its CPU time as GNU time reports it).
list_run() {
    local home t0 t1
    home=$(config list)
    t0=$(now)
    HOME="$home" XDG_CONFIG_HOME="$home/config" XDG_DATA_HOME="$home/data" \
        CONVO_CONFIG="$home/convo.toml" CONVO_API_KEY="$key" \
        /usr/bin/time -f '%U %S' -o "$tmp/list.time" \
        "$BIN" --base-url "$url" list conversations --all --limit "$PAGE" --format jsonl \
        >/dev/null
    t1=$(now)
    echo "$(ms "$t0" "$t1") $(awk '{ printf "%.0f", ($1 + $2) * 1000 }' "$tmp/list.time")"
}

# The pane is polled with capture-pane every POLL seconds. Each poll starts one tmux client
# (about 3 ms of CPU, measured: on a busy 2-core machine it slows the browser being measured a
# little); the clock and the pause are bash's own (`$EPOCHREALTIME`, `read -t`), no other
# process per poll.
exec {nap}<> <(:)
pause() { read -r -t "$POLL" -u "$nap" _ || true; }

# Polls the pane until it contains $1 (false after $2 seconds).
wait_screen() {
    local end text
    end=$((${EPOCHREALTIME/[.,]/} + $2 * 1000000))
    while :; do
        text=$(tmux -L "$sock" capture-pane -p -t convo 2>/dev/null) || true
        [[ "$text" == *"$1"* ]] && return 0
        [ "${EPOCHREALTIME/[.,]/}" -gt "$end" ] && return 1
        pause
    done
}

# What the pane shows (for an error message).
screen() { tmux -L "$sock" capture-pane -p -t convo 2>/dev/null || true; }

# Prints "wall-ms cpu-ms" of one `L` (the browser's CPU time, all its threads).
tui_run() {
    local home t0 t1 done pid c0 c1
    home=$(config tui)
    done="all $(echo "$ROWS" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta') loaded"
    tmux -L "$sock" -f /dev/null new-session -d -s convo -x "$COLS" -y "$LINES_" \
        "env HOME='$home' XDG_CONFIG_HOME='$home/config' XDG_DATA_HOME='$home/data' \
         CONVO_CONFIG='$home/convo.toml' CONVO_API_KEY='$key' \
         CONVO_LOG_FILE='$home/convo.log' '$BIN' --base-url '$url'"
    tmux -L "$sock" set-option -t convo status off >/dev/null
    tmux -L "$sock" set-option -t convo window-size manual >/dev/null
    tmux -L "$sock" resize-window -t convo -x "$COLS" -y "$LINES_" >/dev/null 2>&1 || true
    # The first screen of rows (the footer's row number), then a moment for it to settle.
    wait_screen " row 1 · " 60 || { screen >&2; echo "no first screen" >&2; exit 1; }
    sleep 0.5
    pid=$(tmux -L "$sock" display-message -p -t convo '#{pane_pid}')
    c0=$(cpu_ms "$pid")
    t0=${EPOCHREALTIME/[.,]/}
    tmux -L "$sock" send-keys -t convo L
    wait_screen "$done" 600 || { screen >&2; echo "L never finished" >&2; exit 1; }
    t1=${EPOCHREALTIME/[.,]/}
    c1=$(cpu_ms "$pid")
    tmux -L "$sock" kill-server 2>/dev/null || true
    echo "$(ms "$t0" "$t1") $((c1 - c0))"
}

median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "# $ROWS rows, page $PAGE, ${COLS}x$LINES_ tmux pane, store=$STORE, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | convo list --all > /dev/null | L in tmux | ratio | CPU: list / L |"
echo "|---|---|---|---|---|"
lists=() tuis=()
for i in $(seq "$RUNS"); do
    read -r l lc < <(list_run)
    read -r t tc < <(tui_run)
    [ -n "$l" ] && [ -n "$t" ] || { echo "run $i failed" >&2; exit 1; }
    lists+=("$l") tuis+=("$t")
    echo "| $i | $l ms | $t ms | $(awk -v t="$t" -v l="$l" 'BEGIN { printf "%.2fx", t / l }') | $lc / $tc ms |"
done
lm=$(printf '%s\n' "${lists[@]}" | median)
tm=$(printf '%s\n' "${tuis[@]}" | median)
echo "| median | $lm ms | $tm ms | $(awk -v t="$tm" -v l="$lm" 'BEGIN { printf "%.2fx", t / l }') | |"
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"

#!/usr/bin/env bash
# lppctl check against SPIN on the same transition systems (README.md here).
#
#   bench/spin/run.sh [1e5|1e6]...   (default: both)
#   LPPCTL=/path/to/lppctl           use this binary (default: built from this tree)
#   RUNS=N                           runs of each (default 3): every run is printed
#   SPIN_STORAGE="-DCOLLAPSE -DHC4"  also SPIN with these storage options, once each
#
# For each model: the states each tool stores, CPU (user + sys) of the run,
# CPU per state and peak RSS, from the run's rusage (see measure). lppctl is
# built as the README builds it (CGO_ENABLED=0) unless LPPCTL names one;
# checkonly (checkonly/main.go) runs the same check in a binary of the
# checker alone, to tell the check's costs from those of lppctl's binary.
# SPIN: `spin -a`, then pan built with gcc -O2 -DSAFETY -DNOREDUCE (exact
# storage, SPIN's default: no -DCOLLAPSE, no -DHC4), run as SPIN's default
# depth-first search (-m sized to the model's depth, default hash table
# -w24), then with the hash table sized to the model (-w18 / -w21) and as a
# breadth-first search (-DBFS). The builds are not timed. Peak RSS counts
# the pages of the binary that the process maps: each Go binary is copied
# (cat) into a fresh file first, since a binary just written by the Go
# linker is mapped in larger pieces (lppctl version: 38 MiB instead of 25),
# and the output starts with each tool's floor: the peak RSS of a run that
# checks nothing (lppctl version; checkonly without a spec; pan of a
# 4,099-state model). Then the seeded deadlock: the depth at which SPIN's
# breadth-first search finds it, and the transitions of the shortest path
# lppctl prints.
# Needs spin, gcc, go and jq (apt-get install spin gcc jq).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for tool in spin gcc jq; do
	command -v "$tool" >/dev/null || { echo "run.sh: $tool is required (apt-get install spin gcc jq)" >&2; exit 2; }
done
gcc -O2 -o "$tmp/rusage" "$here/rusage.c"
lppctl="${LPPCTL:-}"
if [ -z "$lppctl" ]; then
	(cd "$here/../.." && CGO_ENABLED=0 go build -o "$tmp/lppctl-built" ./cmd/lppctl)
	lppctl="$tmp/lppctl-built"
fi
cat "$lppctl" >"$tmp/lppctl"
chmod +x "$tmp/lppctl"
lppctl="$tmp/lppctl"
# checkonly: the same check in a binary of the checker alone (checkonly/main.go).
(cd "$here/../.." && CGO_ENABLED=0 go build -o "$tmp/checkonly-built" ./bench/spin/checkonly)
cat "$tmp/checkonly-built" >"$tmp/checkonly"
chmod +x "$tmp/checkonly"
runs="${RUNS:-3}"
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(1e5 1e6)

# measure CMD...: runs it, sets cpu (s), rss (MiB) and out (its output).
# CPU (user + sys) and peak RSS are the child's rusage from wait4, as
# /usr/bin/time -v reads them, but printed to the microsecond (SPIN's runs of
# the small model last 20-40 ms, where time's two decimals hide a factor 2)
# by rusage.c, built with the pan binaries (a fork of a small C program
# execs the command: nothing of the measuring process is counted).
measure() {
	"$tmp/rusage" "$tmp/out" "$@" >"$tmp/time" || true
	read -r cpu rss <"$tmp/time"
	out="$(cat "$tmp/out")"
}

# row TOOL STATES: prints a result line.
row() {
	awk -v t="$1" -v n="$2" -v c="$cpu" -v r="$rss" \
		'BEGIN { printf "%-40s %9d states %8.3f s CPU %6.2f us/state %8.1f MiB peak RSS\n", t, n, c, c / n * 1e6, r }'
}

# pan DIR DEFINES...: builds pan from gen.pml with these -D flags (spin's and gcc's).
pan() {
	local dir="$1"
	shift
	mkdir -p "$dir"
	cp "$here/gen.pml" "$dir/"
	(cd "$dir" && spin "$@" -a gen.pml >/dev/null && gcc -O2 -DSAFETY -DNOREDUCE "$@" -o pan pan.c)
}

# floor: the peak RSS of each tool's process when it checks nothing.
pan "$tmp/floor" -DS=1 -DK=6
measure "$lppctl" version
lpp_floor="$rss"
measure "$tmp/checkonly"
only_floor="$rss"
measure "$tmp/floor/pan" -w10
echo "floor (peak RSS of a run that checks nothing): lppctl version $lpp_floor MiB; checkonly $only_floor MiB; pan of gen.pml -DS=1 -DK=6 (4,099 states), -w10: $rss MiB"

for model in "${models[@]}"; do
	case "$model" in
	1e5) S=24 K=6 w=18 m=100000 ;;
	1e6) S=61 K=7 w=21 m=1000000 ;;
	*) echo "run.sh: unknown model $model (1e5, 1e6)" >&2; exit 2 ;;
	esac
	spec="$here/gen-$model.yaml"
	echo "== $model: gen-$model.yaml and gen.pml -DS=$S -DK=$K (lppctl: S x 4^K + 1 pairs; SPIN: 2 more)"
	pan "$tmp/dfs-$model" -DS=$S -DK=$K
	pan "$tmp/bfs-$model" -DS=$S -DK=$K -DBFS
	for _ in $(seq "$runs"); do
		measure "$lppctl" check "$spec"
		row "lppctl check" "$(sed -n 's/.*: \([0-9]*\) (state, context) pairs.*/\1/p' <<<"$out" | head -1)"
		measure "$tmp/checkonly" "$spec"
		row "checkonly (the checker alone)" "$(sed -n 's/.*: \([0-9]*\) (state, context) pairs.*/\1/p' <<<"$out" | head -1)"
		measure "$tmp/dfs-$model/pan" -m$m
		row "spin (DFS, -w24 default, -m$m)" "$(awk '/states, stored/ {print $1; exit}' <<<"$out")"
		measure "$tmp/dfs-$model/pan" -m$m -w$w
		row "spin (DFS, -w$w, -m$m)" "$(awk '/states, stored/ {print $1; exit}' <<<"$out")"
		measure "$tmp/bfs-$model/pan" -w$w
		row "spin (BFS, -w$w)" "$(awk '/states, stored/ {print $1; exit}' <<<"$out")"
	done
	# SPIN's state compression (SPIN_STORAGE="-DCOLLAPSE -DHC4"): each
	# option's sized DFS and BFS, once. Its "states, stored" is what it
	# kept: hash-compact (HC4) may lose states to collisions.
	for opt in ${SPIN_STORAGE:-}; do
		pan "$tmp/dfs-$model$opt" -DS=$S -DK=$K "$opt"
		pan "$tmp/bfs-$model$opt" -DS=$S -DK=$K -DBFS "$opt"
		measure "$tmp/dfs-$model$opt/pan" -m$m -w$w
		row "spin $opt (DFS, -w$w, -m$m)" "$(awk '/states, stored/ {print $1; exit}' <<<"$out")"
		measure "$tmp/bfs-$model$opt/pan" -w$w
		row "spin $opt (BFS, -w$w)" "$(awk '/states, stored/ {print $1; exit}' <<<"$out")"
	done
	pan "$tmp/seed-$model" -DS=$S -DK=$K -DSEED=1 -DBFS
	spin_depth="$(cd "$tmp/seed-$model" && ./pan -w$w 2>&1 | sed -n 's/.*invalid end state (at depth \([0-9]*\)).*/\1/p')"
	lpp_depth="$({ "$lppctl" check --json "$here/gen-$model-deadlock.yaml" 2>/dev/null || true; } |
		jq '.[0].report.properties[] | select(.property == "deadlock") | (.counterexample.steps | length) - 1')"
	echo "seeded deadlock (gen-$model-deadlock.yaml, -DSEED=1): SPIN BFS at depth $spin_depth; lppctl's shortest counterexample: $lpp_depth transitions, then stuck"
done

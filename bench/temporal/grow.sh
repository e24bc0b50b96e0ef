#!/usr/bin/env bash
# A Temporal run whose list grows by a 200-byte item at every step
# (growlist.yaml), whose map gains a 200-byte key (SPEC=growmap.yaml), or
# whose string gains a 200-byte line (SPEC=growtext.yaml),
# on a dev server with one worker: the blob store it leaves, and the wall
# time and peak RSS of the client that follows it to its end (lppctl run
# --engine temporal) and of lppctl runs show, with the worker still there
# and after it has gone.
#
#   bench/temporal/grow.sh [STEPS]     (default 3000)
#   LPPCTL=/path/to/lppctl             use this binary (default: built from this tree)
#   SPEC=growmap.yaml                  the map instead of the list
#   SPEC=growtext.yaml                 the string instead of the list
#
# Needs the Temporal CLI on PATH (go install github.com/temporalio/cli/cmd/temporal@v1.5.1).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
steps="${1:-3000}"
tmp="$(mktemp -d)"
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
command -v temporal >/dev/null || { echo "grow.sh: the Temporal CLI is required" >&2; exit 2; }
lppctl="${LPPCTL:-}"
if [ -z "$lppctl" ]; then
	(cd "$here/../.." && CGO_ENABLED=0 go build -o "$tmp/lppctl" ./cmd/lppctl)
	lppctl="$tmp/lppctl"
fi
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
ui="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
addr="127.0.0.1:$port"
temporal server start-dev --headless --ip 127.0.0.1 --port "$port" --ui-port "$ui" --log-level error >"$tmp/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	temporal operator cluster health --address "$addr" >/dev/null 2>&1 && break
	sleep 0.2
done
root="$tmp/root"
mkdir -p "$root"
spec="${SPEC:-growlist.yaml}"
cp "$here/$spec" "$root/"
cd "$root"
"$lppctl" worker --temporal "$addr" --root . --task-queue grow >"$tmp/worker.log" 2>&1 &
worker=$!
pids+=($worker)
measure() { /usr/bin/time -f "%e s, %M KB peak RSS" "$@" 2>&1 >/dev/null | tail -1; }
echo "run of $steps steps, followed to its end: $(measure "$lppctl" run --engine temporal --temporal "$addr" --task-queue grow --var steps="$steps" -q "$spec")"
blobs=".lppctl/temporal/blobs"
echo "blob store: $(du -sb "$blobs" | awk '{printf "%.1f MB", $1 / 1e6}') in $(find "$blobs" -type f | wc -l) blobs"
id="$(temporal workflow list --address "$addr" --query 'TaskQueue="grow"' 2>/dev/null | awk '/Completed/ {print $2; exit}')"
echo "runs show, the worker there: $(measure "$lppctl" runs show "$id" --temporal "$addr" --task-queue grow)"
kill "$worker"
wait "$worker" 2>/dev/null || true
echo "runs show, no worker: $(measure "$lppctl" runs show "$id" --temporal "$addr" --task-queue grow)"

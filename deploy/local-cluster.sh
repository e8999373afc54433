#!/usr/bin/env bash
# Starts a wopr cluster of separate processes on this machine: a nats-server
# with JetStream on 127.0.0.1:4222 (built from the module in go.mod), a
# coordinator and two workers, with state under ${WOPR_HOME:-/tmp/wopr-local}.
# Then, in another shell:  go run ./cmd/analyze mnk count --board 4x4 --nats nats://127.0.0.1:4222
# Ctrl-C stops everything (workers finish or hand back their tasks first).
set -euo pipefail
cd "$(dirname "$0")/.."
home=${WOPR_HOME:-/tmp/wopr-local}
port=${WOPR_PORT:-4222}
mkdir -p "$home" bin
go build -o bin/ ./cmd/coordinator ./cmd/worker ./cmd/analyze github.com/nats-io/nats-server/v2

pids=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null; wait' EXIT INT TERM
bin/nats-server -a 127.0.0.1 -p "$port" -js -sd "$home/nats" &
pids+=($!)
url="nats://127.0.0.1:$port"
bin/coordinator --nats "$url" --data "$home/coordinator" &
pids+=($!)
for i in 1 2; do
  bin/worker --nats "$url" --data "$home/worker$i" --name "worker$i" --concurrency 1 &
  pids+=($!)
done
echo "wopr cluster on $url (state in $home); Ctrl-C to stop"
wait

#!/usr/bin/env bash
# The README's load figures: builds the server in release mode, starts it on a fresh store on 127.0.0.1:8089,
# seeds 1000 moods, runs GET /moods?limit=20 alone, the read-mostly mix, then the write-heavy mix (30 s each, 2 threads, 16 connections).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product MoodyServer
store="$(mktemp -d)/moody-load.sqlite"
.build/release/MoodyServer --store "$store" --port 8089 2>/dev/null &
server=$!
trap 'kill $server' EXIT
for _ in $(seq 50); do curl -fs http://127.0.0.1:8089/moods?limit=1 >/dev/null && break; sleep 0.2; done
for i in $(seq 1000); do
    curl -fs -o /dev/null -H 'Content-Type: application/json' -d "{\"rating\": $((i % 6)), \"country\": 250}" http://127.0.0.1:8089/moods
done
uptime   # the load the other users of the machine put on it
wrk -t2 -c16 -d30s --latency 'http://127.0.0.1:8089/moods?limit=20'
wrk -t2 -c16 -d30s --latency -s Load/read-mostly.lua http://127.0.0.1:8089
wrk -t2 -c16 -d30s --latency -s Load/write-heavy.lua http://127.0.0.1:8089
curl -s 'http://127.0.0.1:8089/moods?limit=1' | head -c 300; echo
ls -l "$store"*

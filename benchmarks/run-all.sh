#!/usr/bin/env bash
# The whole benchmark suite in one command: the JMH benchmarks (stock, stock with Blackbird
# and Fastpath side by side, with the GC profiler), the whole requests interleaved in one
# JVM (benchmarks/interleaved.sh), then the server load (benchmarks/load.sh), and one
# markdown report of all three in benchmarks/results/report.md, headed with the machine it
# ran on. A run must stay under 25 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
benchmarks/run.sh
# its own file: benchmarks/results/interleaved.md holds the headline runs the README cites
REPORT=benchmarks/results/report-interleaved.md benchmarks/interleaved.sh
benchmarks/load.sh
elapsed=$(( $(date +%s) - started ))
{
	echo "Machine: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(java -version 2>&1 | head -1)."
	echo "Run: $(date -u +%Y-%m-%d), commit \`$(git rev-parse --short HEAD)\`, $((elapsed / 60)) min $((elapsed % 60)) s in all."
	echo
	echo "#### JMH (ops/s with 99.9% error; B/op is \`gc.alloc.rate.norm\`)"
	echo
	cat benchmarks/results/latest.md
	echo
	echo "#### Whole requests over HTTP to Reactor Netty, interleaved in one JVM"
	echo
	cat benchmarks/results/report-interleaved.md
	echo
	echo "#### Server load (the sample application, wrk over loopback)"
	echo
	cat benchmarks/results/load.md
} >benchmarks/results/report.md
echo "Report: benchmarks/results/report.md"

#!/usr/bin/env bash
# The whole benchmark suite in one command: the JMH benchmarks (stock, stock with Blackbird
# and Fastpath side by side, with the GC profiler), the whole requests interleaved in one
# JVM (benchmarks/interleaved.sh), then the server load (benchmarks/load.sh), and one
# markdown report of all three in benchmarks/results/report.md, headed with the machine it
# ran on. A run must stay under 25 minutes on 2 cores: with every part at its own defaults
# it took 28 (at 2641bc4: JMH 17.5 minutes, interleaved 4.7, load 5.8), so here the JMH
# benchmarks run 3 warm-up and 6 measured iterations instead of 5 and 8, and the
# interleaved rows 60 rounds after 6 s of warm-up instead of 100 after 10. The README's
# figures come from interleaved.sh's own runs, at its defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)
benchmarks/run.sh -wi 3 -i 6
# its own file: benchmarks/results/interleaved.md holds the headline runs the README cites
ROUNDS=60 WARMUP=6 REPORT=benchmarks/results/report-interleaved.md benchmarks/interleaved.sh
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

#!/usr/bin/env bash
# Runs every Fastpath benchmark (stock and Fastpath side by side, with JMH's GC profiler)
# and prints a markdown table; the table is also written to benchmarks/results/latest.md.
#
#   benchmarks/run.sh                      # everything, about 18 minutes on 2 cores
#   benchmarks/run.sh DataBufferJoin       # a subset, by JMH regex
#   benchmarks/run.sh -f 2 -i 10           # any JMH option
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -q -pl benchmarks -am package -DskipTests
mkdir -p benchmarks/results
java -Dreport=benchmarks/results/latest.md -cp benchmarks/target/benchmarks.jar \
	io.fastpath.benchmarks.BenchmarkSuite "$@" | tee benchmarks/results/latest.log
echo
echo "Machine: $(nproc) cores, $(java -version 2>&1 | head -1)"

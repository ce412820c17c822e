#!/usr/bin/env bash
# Runs every Fastpath benchmark (stock and Fastpath side by side, with JMH's GC profiler)
# and prints a markdown table; the table is also written to benchmarks/results/latest.md.
#
#   benchmarks/run.sh                      # everything, about 20 minutes on 2 cores
#   benchmarks/run.sh DataBufferJoin       # a subset, by JMH regex
#   benchmarks/run.sh -f 2 -i 10           # any JMH option
#   REPORT=/tmp/jmh.md ROWS=/tmp/jmh.tsv benchmarks/run.sh ...   # the table elsewhere, and
#                                          # each method's quartiles as tab-separated lines
#   SKIP_BUILD=1 benchmarks/run.sh ...     # the jar as it is (report.sh builds it once)
set -euo pipefail
cd "$(dirname "$0")/.."
REPORT=${REPORT:-benchmarks/results/latest.md}
ROWS=${ROWS:-}
[ "${SKIP_BUILD:-}" = 1 ] || ./mvnw -B -q -pl benchmarks -am package -DskipTests
mkdir -p "$(dirname "$REPORT")"
java -Dreport="$REPORT" ${ROWS:+-Drows="$ROWS"} -cp benchmarks/target/benchmarks.jar \
	io.fastpath.benchmarks.BenchmarkSuite "$@" | tee "${REPORT%.md}.log"
echo
echo "Machine: $(nproc) cores, $(java -version 2>&1 | head -1)"

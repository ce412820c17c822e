#!/usr/bin/env bash
# The 1000-record JSON array and NDJSON responses (Fastpath's batches against the mapper's
# byte[]) in JVMs of their own: alone with the byte[], beside stock's per-value Flux path,
# and in 16 KB batches instead of the default 64 KB. The figures of docs/benchmarks.md's
# "The JVM a row runs in" and "Writes: the batch size and the JVM a row runs in";
# interleaved.sh has the rows with every side. About a minute and a half on 2 cores; run
# it on a quiet machine.
# Writes benchmarks/results/write-context.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-40}
WARMUP=${WARMUP:-10}
REPORT=${REPORT:-benchmarks/results/write-context.md}
./mvnw -B -q -pl benchmarks -am package -DskipTests
mkdir -p benchmarks/results
{
	echo "Machine: $(nproc) cores, $(java -version 2>&1 | head -1). Commit \`$(git rev-parse --short HEAD)\`, $(date -u +%Y-%m-%d)."
	echo
} >"$REPORT"
row() { # $1 title, $2 extra JVM options (or ''), then the sides, the first the baseline
	local title=$1 options=$2
	shift 2
	# shellcheck disable=SC2086
	java -Xms1g -Xmx1g $options -cp benchmarks/target/benchmarks.jar io.fastpath.benchmarks.Interleaved \
		HttpRequestBenchmark "$@" --rounds "$ROUNDS" --warmup-s "$WARMUP" --title "$title" --report "$REPORT" | grep '^|'
}
# The benchmark registers Fastpath by hand, without Boot: its cap is a system property of
# its own (HttpRequestBenchmark's fastpath.batch-cap), not fastpath.json.write.batch-size
for kind in json:"a JSON array" ndjson:NDJSON; do
	shape=flux-${kind%%:*}-1000 body="Flux<T> of 1000 records as ${kind#*:}"
	row "$body: only the byte[] and Fastpath in the JVM" "" \
		request=bytes-1000:stock "request=$shape:fastpath"
	row "$body: the byte[], stock's Flux path and Fastpath in the JVM" "" \
		request=bytes-1000:stock "request=$shape:stock" "request=$shape:fastpath"
	row "$body in 16 KB batches (fastpath.batch-cap=16384): the byte[] and Fastpath" \
		"-Dfastpath.batch-cap=16384" request=bytes-1000:stock "request=$shape:fastpath"
done
echo "Report: $REPORT"

#!/usr/bin/env bash
# Bytes per request of one whole-request row in several fresh JVMs, stock, stock with
# Blackbird and Fastpath side by side in each (io.fastpath.benchmarks.Interleaved): B/op
# is the stable figure within a JVM, but the JIT may decide differently in another one
# (escape analysis on the Blackbird creator path: see docs/benchmarks.md). Prints one line
# per JVM; JVM_OPTS (for example -XX:-DoEscapeAnalysis) goes to every one.
#
#   benchmarks/bytes-across-jvms.sh                # orders, 6 JVMs
#   REQUEST=records JVMS=10 benchmarks/bytes-across-jvms.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REQUEST=${REQUEST:-orders}
JVMS=${JVMS:-6}
JVM_OPTS=${JVM_OPTS:-}
./mvnw -B -q -pl benchmarks -am package -DskipTests
echo "B/op of request=$REQUEST per JVM (stock, stock with Blackbird, Fastpath)${JVM_OPTS:+, JVM options $JVM_OPTS}:"
for jvm in $(seq 1 "$JVMS"); do
	# shellcheck disable=SC2086
	java $JVM_OPTS -cp benchmarks/target/benchmarks.jar io.fastpath.benchmarks.Interleaved HttpRequestBenchmark \
		"request=$REQUEST:stock" "request=$REQUEST:stockBlackbird" "request=$REQUEST:fastpath" \
		--rounds 20 --warmup-s 10 \
		| awk -F'|' -v jvm="$jvm" '/^\| request=/ { gsub(/ /, "", $4); line = line sep $4; sep = ", " } END { print "JVM " jvm ": " line }'
done

#!/usr/bin/env bash
# The headline comparisons, interleaved: each row's sides run in one JVM, alternating in
# ~2 ms blocks over many rounds in a shuffled order (io.fastpath.benchmarks.Interleaved), so that the drift of
# two shared cores cancels out of the ratios. Time and bytes of whole requests over real
# HTTP to Reactor Netty, against stock and against stock with Blackbird on its mapper.
# Writes benchmarks/results/interleaved.md. About 8 minutes on 2 cores, the two 100 MB
# upload rows (BIG_ROUNDS rounds of one request a side each) about a minute of that.
#
#   benchmarks/interleaved.sh                  # every row
#   ROUNDS=200 benchmarks/interleaved.sh       # tighter quartiles
#   ONLY='Response' benchmarks/interleaved.sh  # only the rows whose title matches
#   REPORT=benchmarks/results/interleaved-second.md benchmarks/interleaved.sh
#   SKIP_BUILD=1 benchmarks/interleaved.sh     # the jar as it is (report.sh builds it once)
#   FORKS=2 benchmarks/interleaved.sh          # each row in 2 JVMs, their rounds pooled
#
# With FORKS=n a row runs n times, each in a JVM of its own (a fork, as JMH has them), each
# fork ROUNDS rounds after its own warm-up; the table pools the forks' per-round ratios
# (Interleaved --pool), so its quartiles hold the spread between JVMs (what the JIT
# compiled, and where) and its median is no one JVM's.
set -euo pipefail
cd "$(dirname "$0")/.."
FORKS=${FORKS:-1}
ROUNDS=${ROUNDS:-100}
WARMUP=${WARMUP:-10}
ONLY=${ONLY:-} # a bash regex of row titles to run; empty for every row
BIG_ROUNDS=${BIG_ROUNDS:-10}   # the 100 MB rows: one request is a block, about 0.3-1 s
REPORT=${REPORT:-benchmarks/results/interleaved.md}
[ "${SKIP_BUILD:-}" = 1 ] || ./mvnw -B -q -pl benchmarks -am package -DskipTests
rounds_dir=$(mktemp -d) # each fork's rounds (Interleaved --raw), until its row is pooled
trap 'rm -rf "$rounds_dir"' EXIT
mkdir -p "$(dirname "$REPORT")"
{
	echo "Machine: $(nproc) cores, $(java -version 2>&1 | head -1). Commit \`$(git rev-parse --short HEAD)\`, $(date -u +%Y-%m-%d)."
	echo
} >"$REPORT"
row() { # $1 title, then the sides (params:method), the first the baseline
	local title=$1
	shift
	[[ -z "$ONLY" || "$title" =~ $ONLY ]] || return 0
	rounds_row "$ROUNDS" "$title" "$@"
}
rounds_row() { # $1 rounds, $2 title, then the sides; FORKS forks, pooled into one table
	local rounds=$1 title=$2 fork
	shift 2
	[[ -z "$ONLY" || "$title" =~ $ONLY ]] || return 0
	rm -f "$rounds_dir"/*
	for ((fork = 1; fork <= FORKS; fork++)); do
		java -Xms1g -Xmx1g -cp benchmarks/target/benchmarks.jar io.fastpath.benchmarks.Interleaved HttpRequestBenchmark \
			"$@" --rounds "$rounds" --warmup-s "$WARMUP" --raw "$rounds_dir/$fork.tsv" >/dev/null
	done
	java -cp benchmarks/target/benchmarks.jar io.fastpath.benchmarks.Interleaved --pool "$rounds_dir"/*.tsv \
		--title "$title" --report "$REPORT" | grep '^|'
}
row "List<T> of 1000 flat records, @RequestBody" \
	request=records:stock request=records:stockBlackbird request=records:fastpath
row "List<Order> of 1000 order records, @RequestBody" \
	request=orders:stock request=orders:stockBlackbird request=orders:fastpath
row "Flux<T> of 1000 flat records, @RequestBody" \
	request=records-flux:stock request=records-flux:stockBlackbird request=records-flux:fastpath
row "Form of 5 fields, getFormData()" \
	request=form-5:stock request=form-5:fastpath
row "Form of 50 fields, getFormData()" \
	request=form-50:stock request=form-50:fastpath
row "5 fields bound: @ModelAttribute (stock) against five @FormParam (Fastpath), different controllers" \
	request=bind-5:stock request=bind-5:fastpath
row "Multipart form of 5 fields, getMultipartData(), against the same fields urlencoded read by Fastpath" \
	request=form-5:fastpath request=multipart-5:stock request=multipart-5:fastpath
row "Multipart form of 50 fields, getMultipartData()" \
	request=multipart-50:stock request=multipart-50:fastpath
row "One 4 MB file part read whole through getMultipartData()" \
	request=upload-4mb:stock request=upload-4mb:fastpath
row "A hostile multipart body: 1 MB of a under a boundary of 4,000 a, never found" \
	request=hostile-1mb:stock request=hostile-1mb:fastpath
row "A hostile multipart body: 4 MB of a under a boundary of 4,000 a, never found" \
	request=hostile-4mb:stock request=hostile-4mb:fastpath
row "Response: Flux<T> of 1000 records as a JSON array, against the mapper's byte[] of the same records" \
	request=bytes-1000:stock request=flux-json-1000:stock request=flux-json-1000:stockBlackbird \
	request=flux-json-1000:fastpath request=list-1000:stock request=list-1000:fastpath
row "Response: Flux<T> of 1000 records as a JSON array, Fastpath alone against the mapper's byte[] (no stock Flux path in the JVM)" \
	request=bytes-1000:stock request=flux-json-1000:fastpath request=list-1000:fastpath
row "Response: Flux<T> of 10 records as a JSON array, against the mapper's byte[] (and that byte[] as a Flux of one)" \
	request=bytes-10:stock request=bytesflux-10:stock request=flux-json-10:stock request=flux-json-10:fastpath
row "Response: Flux<T> of 1000 records as NDJSON, against the mapper's byte[] (as a JSON array)" \
	request=bytes-1000:stock request=flux-ndjson-1000:stock request=flux-ndjson-1000:fastpath \
	request=firstahead-ndjson-1000:stock request=cappedahead-ndjson-1000:stock
row "Response: Flux<T> of 1000 records as server-sent events, against the mapper's byte[] (as a JSON array)" \
	request=bytes-1000:stock request=flux-sse-1000:stock request=flux-sse-1000:fastpath \
	request=firstahead-sse-1000:stock request=cappedahead-sse-1000:stock
row "Response: Flux<T> of 1000 records as NDJSON and as server-sent events, Fastpath alone against the mapper's byte[] (no stock Flux path in the JVM)" \
	request=bytes-1000:stock request=flux-ndjson-1000:fastpath request=flux-sse-1000:fastpath
row "Response: Flux<T> of 10 records as NDJSON and as server-sent events, against the mapper's byte[] (as a JSON array)" \
	request=bytes-10:stock request=flux-ndjson-10:stock request=flux-ndjson-10:fastpath \
	request=flux-sse-10:stock request=flux-sse-10:fastpath request=firstahead-ndjson-10:stock \
	request=firstahead-sse-10:stock
row "Response: Flux<T> of 1000 records handed over from another thread (publishOn), against the mapper's byte[] (as a JSON array)" \
	request=bytes-1000:stock request=threaded-json-1000:stock request=threaded-json-1000:fastpath \
	request=threaded-ndjson-1000:fastpath request=threaded-sse-1000:fastpath request=threadedbytes-1000:stock
row "One 4 MB file part read whole through getMultipartData(), against the same 4 MB read whole as the raw body" \
	request=raw-4mb:fastpath request=upload-4mb:fastpath
rounds_row "$BIG_ROUNDS" "One 100 MB file part through getMultipartData() and transferTo a new file (one request per block)" \
	request=transfer-100mb:stock request=transfer-100mb:fastpath
rounds_row "$BIG_ROUNDS" "One 100 MB file part as @RequestBody Flux<PartEvent>, bytes counted (one request per block)" \
	request=partevents-100mb:stock request=partevents-100mb:fastpath
echo "Report: $REPORT"

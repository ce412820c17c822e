#!/usr/bin/env bash
# The figures the README states, in one command and one report: at one commit, on a clean
# tree, the same benchmarks run twice, one run after the other, and
# benchmarks/results/report.md gives each row's first run with its quartiles and whether
# the second run's median fell within them. It reuses the other scripts:
#  - the JMH rows (benchmarks/run.sh, the GC profiler's bytes): JSON arrays read as a Flux
#    and Flux responses written, on Netty's pooled direct buffers (3 forks, spread over the
#    run) with heap rows beside them (1 fork), stock, stock with Blackbird, Fastpath and
#    plain Jackson (the limit);
#  - whole requests over HTTP to Reactor Netty, interleaved in one JVM (benchmarks/interleaved.sh,
#    io.fastpath.benchmarks.Interleaved): the rows of the README's table, each in FORKS JVMs
#    (2) whose per-round ratios are pooled, the report's other rows in REPORT_ONLY_FORKS (1);
#  - with WRK=1, the sample under wrk load (benchmarks/load.sh), beyond the time below.
# It ends by printing the README's results table, taken from the report.
#
#   benchmarks/report.sh                 # about 23 minutes on 2 cores; run it on a quiet machine
#   WRK=1 benchmarks/report.sh           # and the wrk rows (about 3 minutes more a run)
#   SMOKE=1 benchmarks/report.sh         # one fork, a few iterations, two rows: that the
#                                        # script works (benchmarks/results/report-smoke.md)
#   FORKS=3 REPORT_ONLY_FORKS=2 ...      # more JVMs per row (each fork adds its warm-up)
#
# Time on 2 cores: with 10 s and 20 s of a whole-request fork's warm-up, the report took
# 25 min 47 s (the whole-request rows 8.4 minutes a run). A JMH fork of one method is about
# 1-2 s of start and 7.5 s of iterations (5 x 1 s warm-up, 5 x 0.5 s measured), 32 of them
# (24 on Netty's buffers, 8 on heap) about 5 minutes a run; a whole-request fork about 3-4 s of JVM start,
# servers and answer checks, its warm-up (8 s, 15 s for responses) and its rounds (about 1 s;
# 3 s for the 4 MB part, 5 s for the 100 MB one): the README's rows in 2 forks and the other
# 5 in one, about 7.5 minutes a run; about 23 minutes in all. The report gives each row's
# seconds, to check this against.
set -euo pipefail
cd "$(dirname "$0")/.."

SMOKE=${SMOKE:-0}
WRK=${WRK:-0}
if [ "$SMOKE" = 1 ]; then
	REPORT=${REPORT:-benchmarks/results/report-smoke.md}
	JMH_OPTIONS=(-wi 1 -w 200ms -i 2 -r 200ms)
	JMH_ROWS=("JsonEncodeBenchmark -p target=flux -p element=record -p elements=10 -p factory=heap -p optimizeCreators=true -p mediaType=json")
	JMH_FORKS=(1)
	ROUNDS=20 BIG_ROUNDS=2 READ_WARMUP=1 WRITE_WARMUP=1 FORKS=${FORKS:-1}
else
	REPORT=${REPORT:-benchmarks/results/report.md}
	# 5 s of warm-up: a fork of these methods reaches its steady speed after 2-4 s (with 1 s
	# of warm-up the measured iterations were still climbing, their quartiles 2-4x apart).
	# The headline rows, on Netty's pooled direct buffers, in 3 forks (JMH_FORKS); the heap
	# rows beside them in one, to stay under 25 minutes.
	JMH_OPTIONS=(-wi 5 -w 1s -i 5 -r 500ms)
	JMH_ROWS=(
		"JsonArrayDecodeBenchmark -p target=flux -p element=record -p elements=1000 -p buffers=1 -p optimizeCreators=true -p meters=off -p factory=netty-direct"
		"JsonArrayDecodeBenchmark -p target=flux -p element=record -p elements=1000 -p buffers=1 -p optimizeCreators=true -p meters=off -p factory=heap"
		"JsonEncodeBenchmark -p target=flux -p element=record -p elements=1000 -p optimizeCreators=true -p factory=netty-direct -p mediaType=json"
		"JsonEncodeBenchmark -p target=flux -p element=record -p elements=1000 -p optimizeCreators=true -p factory=heap -p mediaType=json"
	)
	JMH_FORKS=(3 1 3 1)
	ROUNDS=100 BIG_ROUNDS=10 READ_WARMUP=8 WRITE_WARMUP=15 FORKS=${FORKS:-2}
fi
# JVMs a row runs in (rounds of each pooled): the README's rows in FORKS, the others in these
REPORT_ONLY_FORKS=${REPORT_ONLY_FORKS:-1}

# The interleaved rows, one a line: the README's label | what 1.00x is | the row's title in
# interleaved.sh | the sides that are stock, stock with Blackbird and Fastpath ("-" where
# the row has none; the row's first side is its baseline) | warm-up | "readme" for the
# README's table, "report" for a row that the report alone gives (the issues' targets). Rows
# may share a title (sides of one interleaved row): it runs once a run.
ROWS_FILE=$(mktemp)
work=$(mktemp -d)
trap 'rm -rf "$work" "$ROWS_FILE"' EXIT
if [ "$SMOKE" = 1 ]; then
	cat >"$ROWS_FILE" <<'ROWS'
Form of 5 fields, `getFormData()`|stock|Form of 5 fields, getFormData()|form-5:stock|-|form-5:fastpath|read|readme
ROWS
else
	cat >"$ROWS_FILE" <<'ROWS'
`@RequestBody List<T>` of 1000 flat records|stock|List<T> of 1000 flat records, @RequestBody|records:stock|records:stockBlackbird|records:fastpath|read|readme
`@RequestBody List<Order>` of 1000 order records|stock|List<Order> of 1000 order records, @RequestBody|orders:stock|orders:stockBlackbird|orders:fastpath|read|readme
`@RequestBody Flux<T>` of 1000 flat records|stock|Flux<T> of 1000 flat records, @RequestBody|records-flux:stock|records-flux:stockBlackbird|records-flux:fastpath|read|readme
Form of 5 fields, `getFormData()`|stock|Form of 5 fields, getFormData()|form-5:stock|-|form-5:fastpath|read|readme
5 fields bound: `@ModelAttribute` (stock), five `@FormParam` (Fastpath)|stock|5 fields bound: @ModelAttribute (stock) against five @FormParam (Fastpath), different controllers|bind-5:stock|-|bind-5:fastpath|read|readme
Multipart form of 5 fields, `getMultipartData()`|the same form urlencoded, read by Fastpath|Multipart form of 5 fields, getMultipartData(), against the same fields urlencoded read by Fastpath|multipart-5:stock|-|multipart-5:fastpath|read|readme
Multipart form of 50 fields, `getMultipartData()`|stock|Multipart form of 50 fields, getMultipartData()|multipart-50:stock|-|multipart-50:fastpath|read|readme
One 4 MB file part read whole, `getMultipartData()`|stock|One 4 MB file part read whole through getMultipartData()|upload-4mb:stock|-|upload-4mb:fastpath|read|readme
One 100 MB file part, `transferTo` a file|stock|One 100 MB file part through getMultipartData() and transferTo a new file (one request per block)|transfer-100mb:stock|-|transfer-100mb:fastpath|read|readme
Response: `Flux<T>` of 1000 records, JSON array|the mapper's `byte[]` of the records, one write|Response: Flux<T> of 1000 records as a JSON array, against the mapper's byte[] of the same records|flux-json-1000:stock|flux-json-1000:stockBlackbird|flux-json-1000:fastpath|write|readme
Response: `Flux<T>` of 1000 records, NDJSON|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records as NDJSON, against the mapper's byte[] (as a JSON array)|flux-ndjson-1000:stock|-|flux-ndjson-1000:fastpath|write|readme
Response: `Flux<T>` of 1000 records, server-sent events|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records as server-sent events, against the mapper's byte[] (as a JSON array)|flux-sse-1000:stock|-|flux-sse-1000:fastpath|write|readme
A hostile multipart body: 1 MB of `a` under a boundary of 4,000 `a`|stock|A hostile multipart body: 1 MB of a under a boundary of 4,000 a, never found|hostile-1mb:stock|-|hostile-1mb:fastpath|read|report
A hostile multipart body: 4 MB of `a` under a boundary of 4,000 `a`|stock|A hostile multipart body: 4 MB of a under a boundary of 4,000 a, never found|hostile-4mb:stock|-|hostile-4mb:fastpath|read|report
Response: `Flux<T>` of 1000 records, NDJSON, no stock `Flux` path in the JVM|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records as NDJSON and as server-sent events, Fastpath alone against the mapper's byte[] (no stock Flux path in the JVM)|-|-|flux-ndjson-1000:fastpath|write|report
Response: `Flux<T>` of 1000 records, server-sent events, no stock `Flux` path in the JVM|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records as NDJSON and as server-sent events, Fastpath alone against the mapper's byte[] (no stock Flux path in the JVM)|-|-|flux-sse-1000:fastpath|write|report
Response: `Flux<T>` of 10 records, NDJSON|the mapper's `byte[]`, one write|Response: Flux<T> of 10 records as NDJSON and as server-sent events, against the mapper's byte[] (as a JSON array)|flux-ndjson-10:stock|-|flux-ndjson-10:fastpath|write|report
Response: `Flux<T>` of 10 records, server-sent events|the mapper's `byte[]`, one write|Response: Flux<T> of 10 records as NDJSON and as server-sent events, against the mapper's byte[] (as a JSON array)|flux-sse-10:stock|-|flux-sse-10:fastpath|write|report
Response: `Flux<T>` of 1000 records from another thread, JSON array|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records handed over from another thread (publishOn), against the mapper's byte[] (as a JSON array)|threaded-json-1000:stock|-|threaded-json-1000:fastpath|write|report
Response: `Flux<T>` of 1000 records from another thread, NDJSON|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records handed over from another thread (publishOn), against the mapper's byte[] (as a JSON array)|-|-|threaded-ndjson-1000:fastpath|write|report
Response: `Flux<T>` of 1000 records from another thread, server-sent events|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records handed over from another thread (publishOn), against the mapper's byte[] (as a JSON array)|-|-|threaded-sse-1000:fastpath|write|report
Response: `List<T>` of 1000 records|the mapper's `byte[]`, one write|Response: Flux<T> of 1000 records as a JSON array, against the mapper's byte[] of the same records|list-1000:stock|-|list-1000:fastpath|write|report
ROWS
fi

if [ -n "$(git status --porcelain)" ]; then
	echo "The tree has changes (git status): a report is of one commit, so commit or stash them first." >&2
	exit 1
fi
commit=$(git rev-parse --short HEAD)
started=$(date +%s)
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
./mvnw -B -q -pl benchmarks -am package -DskipTests

# The JMH rows' forks are spread over a run: the first fork of every row before the
# whole-request rows, each further one after an equal share of them. A machine whose
# speed drifts over minutes then moves a row's forks apart within a run, and their pooled
# quartiles hold that drift, as the whole-request rows' pooled forks hold the spread
# between JVMs; a row's forks run back to back would give quartiles of one moment.
jmh_slots=1
for forks in "${JMH_FORKS[@]}"; do
	[ "$forks" -gt "$jmh_slots" ] && jmh_slots=$forks
done
interleaved_rows=$(cut -d'|' -f3 "$ROWS_FILE" | awk '!seen[$0]++' | wc -l)

jmh_slot() { # $1: the run's number, $2: the slot: a fork of each row that has that many
	local n=$1 slot=$2 i table slot_started
	slot_started=$(date +%s)
	for i in "${!JMH_ROWS[@]}"; do
		[ "$slot" -le "${JMH_FORKS[$i]}" ] || continue
		echo "Run $n: JMH ${JMH_ROWS[$i]}, fork $slot of ${JMH_FORKS[$i]}" >&2
		table="$work/jmh-$n-$((i + 10))-$slot"
		# shellcheck disable=SC2086
		REPORT="$table.md" ROWS="$work/jmh-$n.tsv" SKIP_BUILD=1 benchmarks/run.sh ${JMH_ROWS[$i]} -f 1 \
			"${JMH_OPTIONS[@]}" </dev/null >/dev/null || { tail -40 "$table.log" >&2; exit 1; }
	done
	jmh_seconds=$((jmh_seconds + $(date +%s) - slot_started))
}

run() { # $1: the run's number; its tables and rows go to $work
	local n=$1 title warmup row=10 run_started slot=1
	run_started=$(date +%s)
	jmh_seconds=0
	jmh_slot "$n" 1
	local ran=$'\n' forks row_started
	while IFS='|' read -r _ _ title _ _ _ kind _; do
		[[ "$ran" == *$'\n'"$title"$'\n'* ]] && continue
		ran+="$title"$'\n'
		warmup=$READ_WARMUP
		[ "$kind" = write ] && warmup=$WRITE_WARMUP
		forks=$REPORT_ONLY_FORKS
		cut -d'|' -f3,8 "$ROWS_FILE" | grep -qxF "$title|readme" && forks=$FORKS
		echo "Run $n: $title ($forks fork$([ "$forks" = 1 ] || echo s))" >&2
		row_started=$(date +%s)
		# the row's title as a regex that matches only itself
		ONLY="^$(printf '%s' "$title" | sed 's/[][(){}.*+?^$|\\]/\\&/g')\$" ROUNDS=$ROUNDS BIG_ROUNDS=$BIG_ROUNDS \
			FORKS=$forks WARMUP=$warmup REPORT="$work/interleaved-$n-$row.md" SKIP_BUILD=1 benchmarks/interleaved.sh \
			</dev/null >/dev/null
		grep -q '^| request=' "$work/interleaved-$n-$row.md" \
			|| { echo "No row titled '$title' in benchmarks/interleaved.sh" >&2; exit 1; }
		printf '%s\t%s\t%s\t%s\n' "$n" "$title" "$forks" $(($(date +%s) - row_started)) >>"$work/row-seconds.tsv"
		row=$((row + 1))
		# the next JMH slot once its share of the rows has run
		if [ "$slot" -lt "$jmh_slots" ] && [ $(((row - 10) * jmh_slots)) -ge $((slot * interleaved_rows)) ]; then
			slot=$((slot + 1))
			jmh_slot "$n" "$slot"
		fi
	done <"$ROWS_FILE"
	while [ "$slot" -lt "$jmh_slots" ]; do
		slot=$((slot + 1))
		jmh_slot "$n" "$slot"
	done
	echo "$n"$'\tJMH\t-\t'"$jmh_seconds" >>"$work/row-seconds.tsv"
	if [ "$WRK" = 1 ]; then
		echo "Run $n: benchmarks/load.sh" >&2
		REPORT="$work/load-$n.md" benchmarks/load.sh </dev/null >/dev/null
	fi
	echo $(($(date +%s) - run_started)) >"$work/seconds-$n"
}

run 1
run 2

# Each interleaved table as tab-separated lines: run, title, side, time median, quartiles,
# bytes median, µs/op, B/op, each fork's time median ("" with one fork)
for n in 1 2; do
	cat "$work"/interleaved-"$n"-*.md | awk -v run="$n" '
		/^##### / { match($0, / \(([0-9]+ forks x )?[0-9]+ rounds of /); title = substr($0, 7, RSTART - 7) }
		/^\| request=/ {
			split($0, cell, "|")
			side = cell[2]; sub(/^ *request=/, "", side); sub(/ *$/, "", side)
			time = cell[5]; gsub(/[ x\]]/, "", time); split(time, t, /[\[-]/)
			bytes = cell[6]; gsub(/[ x\]]/, "", bytes); split(bytes, b, /[\[-]/)
			us = cell[3]; gsub(/ /, "", us); bop = cell[4]; gsub(/[ ,]/, "", bop)
			forks = cell[9]; gsub(/^ +| +$/, "", forks)
			print run "\t" title "\t" side "\t" t[1] "\t" t[2] "\t" t[3] "\t" b[1] "\t" us "\t" bop "\t" forks
		}'
done >"$work/interleaved.tsv"

# The interleaved rows in the README's order: label, baseline, then stock, stock with
# Blackbird and Fastpath, each "time [quartiles], bytes; 2nd time" against the baseline,
# and with MODE=report whether the second median is within the first run's quartiles.
INTERLEAVED_TABLE='
BEGIN { FS = "\t" }
function group(n,   s) { s = sprintf("%.0f", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); return s }
NR == FNR { if (mode == "readme" && $8 == "report") next; rows++; label[rows] = $1; base[rows] = $2; title[rows] = $3; side[rows, 1] = $4; side[rows, 2] = $5; side[rows, 3] = $6; next }
{
	key = $1 SUBSEP $2 SUBSEP $3
	med[key] = $4; q1[key] = $5; q3[key] = $6; bytes[key] = $7; us[key] = $8; bop[key] = $9; forks[key] = $10
	if (!(($1 SUBSEP $2) in first)) first[$1, $2] = $3
}
END {
	for (i = 1; i <= rows; i++) {
		t = title[i]; b = first[1, t]
		line = "| " label[i] " | " base[i]
		if (mode == "report") line = line " (`" b "`: " us[1, t, b] " µs, " group(bop[1, t, b]) " B)"
		for (c = 1; c <= 3; c++) {
			s = side[i, c]
			if (s == "-") cell = ""
			else if (s == b) cell = "1.00x"
			else if (!((1, t, s) in med)) cell = "(not measured)"
			else {
				second = ((2, t, s) in med) ? med[2, t, s] "x" : "-"
				cell = med[1, t, s] "x [" q1[1, t, s] "-" q3[1, t, s] "]"
				if (mode == "report" && forks[1, t, s] != "") cell = cell " (forks " forks[1, t, s] ")"
				cell = cell ", bytes " bytes[1, t, s] "x; 2nd " second
				if (mode == "report" && second != "-") {
					checked++
					if (med[2, t, s] >= q1[1, t, s] && med[2, t, s] <= q3[1, t, s]) { cell = cell " in"; within++ }
					else { cell = cell " OUT"; outside = outside (outside == "" ? "" : ", ") "`" s "`" }
				}
			}
			line = line " | " cell
		}
		print line " |"
	}
	if (mode == "report") {
		print ""
		print "The second run'\''s median within the first run'\''s quartiles: " within + 0 " of " checked + 0 \
			(outside == "" ? "." : "; outside: " outside ".")
	}
}'
# The JMH rows: each method's ops/s median [quartiles] and B/op in the first run, the
# second run's median and whether it is within the first's quartiles. A run's lines of one
# method (a fork each) are pooled: the quartiles of every measured iteration, as JMH takes
# a percentile (Apache Commons Math's default), and the mean of the forks' B/op.
JMH_TABLE='
BEGIN { FS = "\t"; method[1] = "stock"; method[2] = "stockBlackbird"; method[3] = "fastpath"; method[4] = "jackson" }
function group(n,   s) { s = sprintf("%.0f", n); while (s ~ /[0-9][0-9][0-9][0-9]/) sub(/[0-9][0-9][0-9]($|,)/, ",&", s); return s }
function percentile(values, n, p,   pos, low) {
	pos = p * (n + 1) / 100
	if (pos < 1) return values[1]
	if (pos >= n) return values[n]
	low = int(pos)
	return values[low] + (pos - low) * (values[low + 1] - values[low])
}
{
	run = (FILENAME ~ /jmh-1\.tsv$/) ? 1 : 2
	row = $1 " | " $2
	if (run == 1 && !(row in seen)) { seen[row] = 1; order[++rows] = row }
	key = run SUBSEP row SUBSEP $3
	scores[key] = (key in scores) ? scores[key] "," $4 : $4
	bytes[key] += $5; forks[key]++
}
END {
	for (key in scores) {
		n = split(scores[key], values, ",")
		for (i = 2; i <= n; i++) { v = values[i] + 0; for (j = i - 1; j >= 1 && values[j] + 0 > v; j--) values[j + 1] = values[j]; values[j + 1] = v }
		q1[key] = percentile(values, n, 25); med[key] = percentile(values, n, 50); q3[key] = percentile(values, n, 75)
		bop[key] = bytes[key] / forks[key]
	}
	for (i = 1; i <= rows; i++) {
		r = order[i]; line = "| " r
		for (m = 1; m <= 4; m++) {
			k = 1 SUBSEP r SUBSEP method[m]; k2 = 2 SUBSEP r SUBSEP method[m]
			if (!(k in med)) { line = line " | "; continue }
			cell = group(med[k]) " [" group(q1[k]) "-" group(q3[k]) "], " group(bop[k]) " B"
			if (k2 in med) {
				checked++
				cell = cell "; 2nd " group(med[k2])
				if (med[k2] >= q1[k] && med[k2] <= q3[k]) { cell = cell " in"; within++ }
				else { cell = cell " OUT"; outside = outside (outside == "" ? "" : ", ") method[m] " of " r }
			}
			line = line " | " cell
		}
		s = 1 SUBSEP r SUBSEP "stock"; f = 1 SUBSEP r SUBSEP "fastpath"
		s2 = 2 SUBSEP r SUBSEP "stock"; f2 = 2 SUBSEP r SUBSEP "fastpath"
		ratio = ""
		if (med[s] > 0 && bop[s] > 0) ratio = sprintf("%.2fx, bytes %.2fx", med[f] / med[s], bop[f] / bop[s])
		if (med[s2] > 0) ratio = ratio sprintf("; 2nd %.2fx", med[f2] / med[s2])
		print line " | " ratio " |"
	}
	print ""
	print "The second run'\''s median within the first run'\''s quartiles: " within + 0 " of " checked + 0 \
		(outside == "" ? "." : "; outside: " outside ".")
}'

elapsed=$(($(date +%s) - started))
minutes() { echo "$(($1 / 60)) min $(($1 % 60)) s"; }
mkdir -p "$(dirname "$REPORT")"
{
	echo "# Benchmark report"
	echo
	echo "Commit \`$commit\` (a clean tree), $(date -u +%Y-%m-%d), \`benchmarks/report.sh\`$([ "$SMOKE" = 1 ] && echo " with SMOKE=1 (a few iterations and rounds, two rows, JMH in one fork, whole requests in $FORKS: a trial of the script, not figures)")$([ "$WRK" = 1 ] && echo " with WRK=1")."
	echo "Two runs one after the other: $(minutes "$(cat "$work/seconds-1")") and $(minutes "$(cat "$work/seconds-2")"), $(minutes "$elapsed") in all with the build."
	echo
	echo "Machine: $(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo), $(free -g | awk '/Mem:/ { print $2 }') GiB, $(uname -sr); load average $load_at_start at the start."
	echo "JVM: $(java -version 2>&1 | sed -n 3p). Spring Boot $(sed -n 's:.*<spring-boot.version>\(.*\)</spring-boot.version>.*:\1:p' pom.xml | head -1), Netty $(sed -n 's:.*<netty.version>\(.*\)</netty.version>.*:\1:p' pom.xml | head -1)."
	echo
	echo "## Method"
	echo
	echo "Whole requests (\`benchmarks/interleaved.sh\`): WebFlux applications in one JVM on loopback"
	echo "ports and one event loop with the same controllers (stock, stock with Jackson's Blackbird module on its mapper,"
	echo "Fastpath) and a client that allocates next to nothing, so the bytes are the server's. A row's"
	echo "sides run in ~2 ms blocks, a block a side a round, in an order shuffled each round: $ROUNDS"
	echo "rounds ($BIG_ROUNDS for the 100 MB row, a request a block) after $READ_WARMUP s of warm-up, shared equally by the sides ($WRITE_WARMUP s for"
	echo "responses). Each of the README's rows runs so in $FORKS JVMs (forks) a run, one after the other,"
	echo "the report's other rows in $REPORT_ONLY_FORKS. A ratio is taken within a round of one fork, against the"
	echo "row's baseline (its first side) in the same round; a time is the median [quartiles] of the"
	echo "per-round ratios of every fork pooled (each fork's median in parentheses), so the quartiles"
	echo "hold the spread between JVMs; bytes are the median of the pooled per-round ratios."
	echo "A baseline's µs/op and B/op are the median of every fork's rounds pooled."
	echo
	echo "JMH (\`benchmarks/run.sh\`, \`-f 1 ${JMH_OPTIONS[*]}\`, \`-prof gc\`$([ "$SMOKE" = 1 ] || echo ", the rows on Netty's buffers in 3 forks, on heap in 1")): ops/s as the median"
	echo "[quartiles] of the measured iterations of every fork, B/op as the mean of the forks' \`gc.alloc.rate.norm\`;"
	echo "a row's forks are spread over the run (the first before the whole-request rows, the others"
	echo "after each third of them), so its quartiles hold the machine's drift over a run; the"
	echo "methods of one parameter combination run back to back. The limit is plain Jackson: the whole"
	echo "array read from one \`byte[]\`, or the list written into one."
	echo
	echo "\"2nd\" is the second run's median: \"in\" where it fell within the first run's quartiles,"
	echo "\"OUT\" where not."
	echo
	echo "## Whole requests over HTTP to Reactor Netty, interleaved"
	echo
	echo "| Row | Baseline (1.00x) | Stock | Stock + Blackbird | Fastpath |"
	echo "|---|---|---|---|---|"
	awk -v mode=report "$INTERLEAVED_TABLE" <(tr '|' '\t' <"$ROWS_FILE") "$work/interleaved.tsv"
	echo
	echo "## JMH, ops/s and B/op"
	echo
	echo "| Benchmark | Params | Stock | Stock + Blackbird | Fastpath | Jackson (the limit) | Fastpath/stock ops/s |"
	echo "|---|---|---|---|---|---|---|"
	awk "$JMH_TABLE" "$work/jmh-1.tsv" "$work/jmh-2.tsv"
	echo
	echo "## Seconds each row took"
	echo
	echo "| Row | Forks | Run 1 | Run 2 |"
	echo "|---|---:|---:|---:|"
	awk -F'\t' '$1 == 1 { order[++rows] = $2; forks[$2] = $3 } { seconds[$1, $2] = $4 }
		END { for (i = 1; i <= rows; i++) print "| " order[i] " | " forks[order[i]] " | " seconds[1, order[i]] " | " seconds[2, order[i]] " |" }' \
		"$work/row-seconds.tsv"
	for n in 1 2; do
		echo
		echo "## Run $n, as the scripts printed it"
		echo
		for table in "$work"/jmh-"$n"-*.md; do
			cat "$table"
			echo
		done
		cat "$work"/interleaved-"$n"-*.md | sed 's/^##### /### /' | grep -v '^Machine: '
		if [ "$WRK" = 1 ]; then
			echo "### The sample under wrk load (benchmarks/load.sh)"
			echo
			cat "$work/load-$n.md"
		fi
	done
} >"$REPORT"

echo
echo "Report: $REPORT ($(minutes "$elapsed"))"
echo
echo "The README's results table (commit \`$commit\`):"
echo
echo "| Request or response | Against (1.00x) | Stock | Stock + Blackbird | Fastpath |"
echo "|---|---|---|---|---|"
awk -v mode=readme "$INTERLEAVED_TABLE" <(tr '|' '\t' <"$ROWS_FILE") "$work/interleaved.tsv"

#!/usr/bin/env bash
# Server load: starts the sample application three times on loopback ports: stock Spring
# (Fastpath off, and no Blackbird in the application's mapper, as without the starter),
# stock with Blackbird (Fastpath off; Boot registers the Blackbird module it finds on the
# class path: stock as a user could tune it in one step) and Fastpath; warms them up, then
# drives each endpoint with wrk, alternating between the servers so that none is favoured
# by the order of measurement, and prints a markdown table of requests/s (the mean of the
# rounds), latency percentiles (of the last round) and the ratios (also written to
# benchmarks/results/load.md). Bounded: about 5 minutes with the defaults below.
#
#   benchmarks/load.sh                         # every endpoint, on Reactor Netty
#   SERVER=tomcat benchmarks/load.sh           # on Tomcat (or jetty; netty is the default)
#   DURATION=20 CONNECTIONS=32 benchmarks/load.sh
#   ONLY=flux-response benchmarks/load.sh     # only the endpoints whose name matches (grep -E)
#
# list-response is flux-response's reference: the same 100 orders, returned as a List, which
# stock writes in one buffer with one write (what the same JSON written once costs); its
# requests/s bound what batching flux-response can reach.
#
# SERVER: the sample's jar is built with -Pall-servers (Reactor Netty, Tomcat and Jetty),
# and Boot is left the chosen server's auto-configuration alone (spring.autoconfigure.exclude);
# WebClient stays on Reactor Netty's connector whatever the server. The report goes to
# benchmarks/results/load.md (netty) or load-SERVER.md, or to REPORT if set.
#
# Needs wrk (Debian package "wrk"): installed with apt-get when running as root, otherwise
# the script says how to install it and stops.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-5}        # seconds per measured round, per endpoint and mode
ROUNDS=${ROUNDS:-2}            # measured rounds per endpoint and mode, alternating
WARMUP=${WARMUP:-3}            # seconds of load per endpoint and mode before measuring
CONNECTIONS=${CONNECTIONS:-16}
THREADS=${THREADS:-1}          # wrk threads; the server gets the other core
PORT=${PORT:-18080}            # stock; Fastpath listens on PORT + 1, stock with Blackbird on PORT + 2
JAVA_OPTS=${JAVA_OPTS:--Xms512m -Xmx512m}
SERVER=${SERVER:-netty}         # netty, tomcat or jetty
ONLY=${ONLY:-}                  # a grep -E pattern of endpoint names; empty for all
REQUESTED_REPORT=${REPORT:-}    # where the table goes; empty for the server's default below
NETTY_SERVER=org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration
TOMCAT_SERVER=org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration
JETTY_SERVER=org.springframework.boot.jetty.autoconfigure.reactive.JettyReactiveWebServerAutoConfiguration
case "$SERVER" in
	netty) EXCLUDED="$TOMCAT_SERVER,$JETTY_SERVER"; SERVER_NAME=Netty; REPORT=benchmarks/results/load.md ;;
	tomcat) EXCLUDED="$NETTY_SERVER,$JETTY_SERVER"; SERVER_NAME=Tomcat; REPORT=benchmarks/results/load-tomcat.md ;;
	jetty) EXCLUDED="$NETTY_SERVER,$TOMCAT_SERVER"; SERVER_NAME=Jetty; REPORT=benchmarks/results/load-jetty.md ;;
	*) echo "SERVER must be netty, tomcat or jetty, not '$SERVER'" >&2; exit 1 ;;
esac
REPORT=${REQUESTED_REPORT:-$REPORT}
mkdir -p "$(dirname "$REPORT")"

if ! command -v wrk >/dev/null 2>&1; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		echo "Installing wrk (Debian package) ..." >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null 2>&1 \
			|| { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
	else
		echo "wrk is needed for the load part: install it with 'sudo apt-get install wrk' (Debian/Ubuntu)" >&2
		echo "or from https://github.com/wg/wrk, then run this script again." >&2
		exit 1
	fi
fi

JAR=sample/target/fastpath-sample.jar
if [ ! -f "$JAR" ] || [ -n "$(find sample/src sample/pom.xml autoconfigure/src -newer "$JAR" -type f | head -1)" ] \
		|| ! unzip -l "$JAR" | grep -q 'BOOT-INF/lib/tomcat-embed-core-' || ! unzip -l "$JAR" | grep -q 'BOOT-INF/lib/jetty-server-'; then
	./mvnw -B -q -pl sample -am package -DskipTests -Pall-servers
fi

work=$(mktemp -d)
cleanup() {
	for pid in "${pids[@]:-}"; do
		if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

pids=()
start_server() { # $1: mode (stock, fastpath or blackbird), $2: port
	local options
	case "$1" in
		stock) options="--fastpath.enabled=false --spring.jackson.find-and-add-modules=false" ;;
		blackbird) options="--fastpath.enabled=false" ;;
		fastpath) options="--fastpath.enabled=true" ;;
	esac
	# Spooled uploads in the work directory, removed at exit: wrk closes its connections
	# with requests in flight, and WebFlux deletes a request's parts when it ends, not
	# when it is cancelled (stock and Fastpath alike), so files would stay behind in /tmp.
	mkdir -p "$work/multipart-$1"
	# shellcheck disable=SC2086
	java $JAVA_OPTS -jar "$JAR" --server.port="$2" --server.address=127.0.0.1 \
		--spring.webflux.multipart.file-storage-directory="$work/multipart-$1" \
		--spring.autoconfigure.exclude="$EXCLUDED" $options \
		--logging.level.org.springframework.boot.reactor.netty.NettyWebServer=info \
		--logging.level.org.springframework.boot.tomcat.TomcatWebServer=info \
		--logging.level.org.springframework.boot.jetty.JettyWebServer=info >"$work/server-$1.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 1 120); do
		if curl -sf "http://127.0.0.1:$2/orders/ids" -H 'Content-Type: application/json' -d '[1]' >/dev/null 2>&1; then
			if ! grep -q "$SERVER_NAME started on port $2" "$work/server-$1.log"; then
				echo "The sample did not start on $SERVER_NAME; its log:" >&2
				cat "$work/server-$1.log" >&2
				exit 1
			fi
			return 0
		fi
		sleep 0.5
	done
	echo "The sample did not start; its log:" >&2
	cat "$work/server-$1.log" >&2
	exit 1
}

# name|method|path|content type|body file ("-" for none)
endpoints() {
	all_endpoints | grep -E "^(${ONLY:-[^|]*})\|"
}

all_endpoints() {
	cat <<ENDPOINTS
json-list|POST|/orders/batch|application/json|$work/orders.json
json-flux|POST|/orders/stream|application/json|$work/orders.json
json-long-array|POST|/orders/ids|application/json|$work/ids.json
form-params|POST|/signup|application/x-www-form-urlencoded|$work/signup.form
form-merged|POST|/search?q=tea&page=2|application/x-www-form-urlencoded|$work/search.form
webclient-list|GET|/catalog/summary?count=100|-|-
flux-response|GET|/orders/recent?count=100|-|-
list-response|GET|/catalog/orders?count=100|-|-
upload|POST|/support|multipart/form-data; boundary=$UPLOAD_BOUNDARY|$work/upload.multipart
ENDPOINTS
}

write_script() { # $1 method, $2 content type, $3 body file, $4 script
	{
		echo "wrk.method = \"$1\""
		if [ "$3" != "-" ]; then
			echo "wrk.headers[\"Content-Type\"] = \"$2\""
			echo "local file = io.open(\"$3\", \"rb\")"
			echo "wrk.body = file:read(\"*a\")"
			echo "file:close()"
		fi
	} >"$4"
}

run_wrk() { # $1 seconds, $2 script, $3 port, $4 path; prints wrk's report
	wrk -t"$THREADS" -c"$CONNECTIONS" -d"$1s" --latency -s "$2" "http://127.0.0.1:$3$4"
}

# Prints one line per endpoint and mode: name mode rps p50 p90 p99 non2xx
measure() {
	local name method path type body script out mode port round
	while IFS='|' read -r name method path type body; do
		script="$work/$name.lua"
		write_script "$method" "$type" "$body" "$script"
		for port in "$PORT" "$((PORT + 1))" "$((PORT + 2))"; do
			run_wrk "$WARMUP" "$script" "$port" "$path" >/dev/null
		done
		for round in $(seq 1 "$ROUNDS"); do
			for mode in stock fastpath blackbird; do
				port=$PORT
				[ "$mode" = fastpath ] && port=$((PORT + 1))
				[ "$mode" = blackbird ] && port=$((PORT + 2))
				out=$(run_wrk "$DURATION" "$script" "$port" "$path")
				echo "$name $mode $(echo "$out" | awk '/Requests\/sec/ {print $2}') \
$(echo "$out" | awk '$1 == "50%" {print $2}') $(echo "$out" | awk '$1 == "90%" {print $2}') \
$(echo "$out" | awk '$1 == "99%" {print $2}') $(echo "$out" | awk '/Non-2xx/ {print $5}' | grep . || echo 0)"
			done
		done
	done < <(endpoints)
}

# Bodies: 100 orders from the sample's own catalog, 1000 ids, two forms, and a multipart
# form with a 1 MB attachment (over Boot's 256 KB in-memory limit: spooled to disk), its
# bytes the same on every run (AES-CTR of zeros under a fixed key, not /dev/urandom)
UPLOAD_BOUNDARY=fastpath-load-boundary
start_server stock "$PORT"
start_server fastpath "$((PORT + 1))"
start_server blackbird "$((PORT + 2))"
curl -sf "http://127.0.0.1:$PORT/catalog/orders?count=100" >"$work/orders.json"
echo "[$(seq -s, 1 1000)]" >"$work/ids.json"
printf 'email=ada%%40example.com&seats=2&tag=math&tag=engines&referrer=friend%%20of%%20a%%20friend&plan=PREMIUM' >"$work/signup.form"
printf 'q=cake&size=10&sort=price&filter=in+stock&from=2026-01-01&to=2026-12-31' >"$work/search.form"
{
	printf -- '--%s\r\nContent-Disposition: form-data; name="subject"\r\n\r\nPrinter on fire\r\n' "$UPLOAD_BOUNDARY"
	printf -- '--%s\r\nContent-Disposition: form-data; name="attachment"; filename="log.bin"\r\n' "$UPLOAD_BOUNDARY"
	printf 'Content-Type: application/octet-stream\r\n\r\n'
	head -c 1048576 /dev/zero | openssl enc -aes-128-ctr -nosalt -K 00112233445566778899aabbccddeeff -iv 00000000000000000000000000000000 2>/dev/null
	printf -- '\r\n--%s--\r\n' "$UPLOAD_BOUNDARY"
} >"$work/upload.multipart"
echo "Measuring stock Spring (port $PORT), Fastpath (port $((PORT + 1))) and stock with Blackbird (port $((PORT + 2))) on $SERVER_NAME, alternating ..." >&2
measure >"$work/results.txt"
# A server that stopped answering, or another process on its port (a second run started
# alongside), leaves wrk without answers: say so, rather than report zeros.
if awk '$3 + 0 == 0 { none = 1 } END { exit !none }' "$work/results.txt"; then
	echo "wrk got no answers for some endpoint (name, mode, req/s, ...):" >&2
	cat "$work/results.txt" >&2
	exit 1
fi

mean_rps() { # $1 endpoint, $2 mode
	awk -v n="$1" -v m="$2" '$1 == n && $2 == m { sum += $3; count++ } END { printf "%.0f", sum / count }' "$work/results.txt"
}
ratio() { # $1 / $2
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", a / b }'
}

{
	echo "| Endpoint | Stock req/s | Stock + Blackbird req/s | Fastpath req/s | Fastpath/stock | Fastpath/stock + Blackbird | Stock p50 / p90 / p99 | Fastpath p50 / p90 / p99 | Non-2xx (stock, + Blackbird, Fastpath) |"
	echo "|---|---:|---:|---:|---:|---:|---|---|---:|"
	while IFS='|' read -r name method path type body; do
		s_rps=$(mean_rps "$name" stock)
		b_rps=$(mean_rps "$name" blackbird)
		f_rps=$(mean_rps "$name" fastpath)
		read -r _ _ _ s50 s90 s99 s_err < <(grep "^$name stock " "$work/results.txt" | tail -1)
		read -r _ _ _ _ _ _ b_err < <(grep "^$name blackbird " "$work/results.txt" | tail -1)
		read -r _ _ _ f50 f90 f99 f_err < <(grep "^$name fastpath " "$work/results.txt" | tail -1)
		echo "| $name \`$method $path\` | $s_rps | $b_rps | $f_rps | $(ratio "$f_rps" "$s_rps") | $(ratio "$f_rps" "$b_rps") | $s50 / $s90 / $s99 | $f50 / $f90 / $f99 | $s_err, $b_err, $f_err |"
	done < <(endpoints)
	echo
	echo "wrk: $THREADS thread(s), $CONNECTIONS connections; per endpoint and mode ${WARMUP}s warmup, then $ROUNDS rounds"
	echo "of ${DURATION}s alternating stock, Fastpath and stock with Blackbird (req/s: mean of the rounds; latency: last round);"
	echo "the servers ($SERVER_NAME) and wrk on one machine over loopback ($(nproc) cores); server JVM options: $JAVA_OPTS."
} | tee "$REPORT"

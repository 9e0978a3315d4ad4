#!/usr/bin/env bash
# Local Zipkin (trace backend for OTEL_TRACES_EXPORTER=zipkin) without Docker.
#
#   infra/bin/zipkin.sh fetch    download io.zipkin:zipkin-server (exec jar) into the cache, once
#   infra/bin/zipkin.sh start    fetch if needed, start on 127.0.0.1:9411 with in-memory storage, wait for /health
#   infra/bin/zipkin.sh stop     TERM, bounded wait, then KILL
#   infra/bin/zipkin.sh status   exit 0 when running and healthy, 3 when not running
#
# The version is pinned in infra/zipkin/pom.xml (<zipkin.version>). Needs Java 17+ and Maven.
# Environment: ZIPKIN_PORT (9411), ZIPKIN_START_TIMEOUT (s, 120), ZIPKIN_JAVA_OPTS,
# ZIPKIN_MEM_MAX_SPANS (20000), PIPELINE_CACHE_DIR.
# Spans go to http://127.0.0.1:9411/api/v2/spans; UI at http://127.0.0.1:9411/zipkin/.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR
source "$(dirname "${BASH_SOURCE[0]}")/lib/proc.sh"
# shellcheck disable=SC2034 # read by lib/proc.sh
PROC_TAG="[zipkin]"

NAME=zipkin
POM="$PROC_REPO_ROOT/infra/zipkin/pom.xml"
ZIPKIN_VERSION="$(sed -n 's:.*<zipkin.version>\(.*\)</zipkin.version>.*:\1:p' "$POM")"
[ -n "$ZIPKIN_VERSION" ] || { proc_err "no <zipkin.version> in $POM"; exit 1; }
ZIPKIN_HOST=127.0.0.1
ZIPKIN_PORT="${ZIPKIN_PORT:-9411}"
ZIPKIN_URL="http://$ZIPKIN_HOST:$ZIPKIN_PORT"
JAR_DIR="$PIPELINE_CACHE_DIR/zipkin"
JAR="$JAR_DIR/zipkin-server-$ZIPKIN_VERSION-exec.jar"
LOG="$(proc_dir "$NAME")/$NAME.log"
START_TIMEOUT="${ZIPKIN_START_TIMEOUT:-120}"
# Small heap and a quick-starting JIT: a development trace store, not a production one.
JAVA_OPTS_DEFAULT="-Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto"
# The in-memory store's bound, in spans: it drops the oldest traces beyond it. A stored span of
# ours takes about 4 KB of heap, so 20,000 (about 500 whole orders at ~40 spans each) fill well
# under half of the 256 MiB heap. With 100,000 the heap ran out at about 50,000 spans: back-to-back
# full GCs, a core busy until a restart (docs/observability.md#the-trace-store-and-the-mail-sink).
MEM_MAX_SPANS_DEFAULT=20000

fetch() {
  if [ -s "$JAR" ]; then
    proc_say "zipkin-server $ZIPKIN_VERSION already in cache: $JAR"
    return 0
  fi
  command -v mvn >/dev/null || { proc_err "mvn not found (apt-get install maven)"; return 1; }
  proc_say "fetching io.zipkin:zipkin-server:$ZIPKIN_VERSION:exec from Maven Central"
  local start=$EPOCHREALTIME tmp="$JAR_DIR/.tmp.$$"
  mkdir -p "$tmp"
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  local out
  if ! out="$(mvn -q -B -Dstyle.color=never -f "$POM" dependency:copy@fetch-zipkin -Dzipkin.outputDirectory="$tmp" 2>&1)"; then
    echo "$out" >&2
    proc_err "maven could not fetch io.zipkin:zipkin-server:$ZIPKIN_VERSION:exec"
    return 1
  fi
  local got="$tmp/zipkin-server-$ZIPKIN_VERSION-exec.jar"
  [ -s "$got" ] || { proc_err "maven did not produce $got"; return 1; }
  mv "$got" "$JAR"
  rm -rf "$tmp"
  trap - EXIT
  proc_say "fetched $(du -h "$JAR" | cut -f1) in $(elapsed_since "$start")s: $JAR"
}

start() {
  if proc_running "$NAME"; then
    proc_say "already running (pid $(proc_pid "$NAME")) on $ZIPKIN_URL"
    return 0
  fi
  if tcp_open "$ZIPKIN_HOST" "$ZIPKIN_PORT"; then
    proc_err "port $ZIPKIN_PORT is taken by a process this script did not start"
    return 1
  fi
  command -v java >/dev/null || { proc_err "java not found (Zipkin 3 needs Java 17+)"; return 1; }
  fetch
  local start=$EPOCHREALTIME
  # Only the HTTP collector (POST /api/v2/spans) and the query API/UI, bound to loopback.
  # Spring replaces a list property whole, hence all three fields of armeria.ports[0].
  # shellcheck disable=SC2086
  proc_start "$NAME" "$LOG" env \
    STORAGE_TYPE=mem \
    MEM_MAX_SPANS="${ZIPKIN_MEM_MAX_SPANS:-$MEM_MAX_SPANS_DEFAULT}" \
    QUERY_PORT="$ZIPKIN_PORT" \
    SELF_TRACING_ENABLED=false \
    COLLECTOR_KAFKA_ENABLED=false COLLECTOR_RABBITMQ_ENABLED=false \
    COLLECTOR_ACTIVEMQ_ENABLED=false COLLECTOR_PULSAR_ENABLED=false \
    DISCOVERY_EUREKA_ENABLED=false \
    java ${ZIPKIN_JAVA_OPTS:-$JAVA_OPTS_DEFAULT} -jar "$JAR" \
    --armeria.ports[0].ip="$ZIPKIN_HOST" \
    --armeria.ports[0].port="$ZIPKIN_PORT" \
    --armeria.ports[0].protocols[0]=http \
    --logging.level.root=WARN --logging.level.zipkin2=INFO
  proc_say "waiting for $ZIPKIN_URL/health (up to ${START_TIMEOUT}s)"
  if ! wait_http "$ZIPKIN_URL/health" "$START_TIMEOUT" "$NAME"; then
    log_tail "$LOG"
    proc_stop "$NAME" 5 >/dev/null || true
    return 1
  fi
  proc_say "healthy after $(elapsed_since "$start")s: UI $ZIPKIN_URL/zipkin/, spans $ZIPKIN_URL/api/v2/spans"
}

status() {
  if ! proc_running "$NAME"; then
    proc_say "not running"
    return 3
  fi
  if curl -fsS -o /dev/null --max-time 2 "$ZIPKIN_URL/health"; then
    proc_say "running (pid $(proc_pid "$NAME")), healthy on $ZIPKIN_URL"
  else
    proc_say "running (pid $(proc_pid "$NAME")) but $ZIPKIN_URL/health does not answer"
    return 1
  fi
}

case "${1:-}" in
  fetch) fetch ;;
  start) start ;;
  stop) proc_stop "$NAME" ;;
  status) status ;;
  *)
    echo "usage: $0 fetch|start|stop|status" >&2
    exit 2
    ;;
esac

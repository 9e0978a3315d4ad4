# shellcheck shell=bash disable=SC2034 # variables used by the scripts that source this
# Shared by infra/bin/kafka.sh and the infra/bin/kafka-*.sh tool wrappers. Source it, don't run it.
#
# Apache Kafka comes from Maven Central (infra/kafka/pom.xml), copied once into
#   ${PIPELINE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/order-pipeline}/kafka-<version>/libs
# and is run the way the Apache tarball's scripts run it: java -cp '<libs>/*' <main class> ...
#
# Environment (all optional):
#   KAFKA_VERSION          Kafka release to use (default below; must resolve on Maven Central)
#   PIPELINE_CACHE_DIR     cache root shared with scripts/ensure-node.sh
#   JAVA_HOME              java to use (else `java` on PATH); Kafka 4.x needs Java 17+
#   KAFKA_BOOTSTRAP        default --bootstrap-server of the tool wrappers (127.0.0.1:$KAFKA_PORT)
#   KAFKA_PORT             client port of the single node (9092)
#   KAFKA_TOOLS_JVM_OPTS   JVM options of the short-lived tools (small heap, fast start)

KAFKA_VERSION_DEFAULT="4.1.2" # keep in sync with <kafka.version> in infra/kafka/pom.xml
KAFKA_VERSION="${KAFKA_VERSION:-$KAFKA_VERSION_DEFAULT}"

KAFKA_BIN_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
KAFKA_INFRA_DIR="$(cd "$KAFKA_BIN_DIR/.." && pwd)"
KAFKA_REPO_ROOT="$(cd "$KAFKA_INFRA_DIR/.." && pwd)"
KAFKA_CONF_DIR="$KAFKA_INFRA_DIR/kafka"
KAFKA_POM="$KAFKA_CONF_DIR/pom.xml"
KAFKA_BROKER_LOG4J="$KAFKA_CONF_DIR/log4j2.xml"
KAFKA_TOOLS_LOG4J="$KAFKA_CONF_DIR/tools-log4j2.xml"

PIPELINE_CACHE_DIR="${PIPELINE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/order-pipeline}"
KAFKA_HOME_DIR="$PIPELINE_CACHE_DIR/kafka-$KAFKA_VERSION"
KAFKA_LIBS="$KAFKA_HOME_DIR/libs"
KAFKA_FETCH_MARKER="$KAFKA_HOME_DIR/.fetched"

KAFKA_HOST="${KAFKA_HOST:-127.0.0.1}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_BOOTSTRAP="${KAFKA_BOOTSTRAP:-$KAFKA_HOST:$KAFKA_PORT}"
KAFKA_TOOLS_JVM_OPTS="${KAFKA_TOOLS_JVM_OPTS:--Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto}"

# Progress messages. kafka.sh prints them on stdout; the tool wrappers set KAFKA_SAY_FD=2 so that
# a first-run fetch never mixes into a tool's own output.
kafka_say() { printf '[kafka] %s\n' "$*" >&"${KAFKA_SAY_FD:-1}"; }
kafka_die() {
  printf '[kafka] error: %s\n' "$*" >&2
  exit 1
}

# Seconds since the epoch with sub-second precision (bash 5's EPOCHREALTIME).
kafka_now() { printf '%s' "${EPOCHREALTIME:-$(date +%s.%N)}"; }
kafka_elapsed() { awk -v a="$1" -v b="$(kafka_now)" 'BEGIN { printf "%.1f", b - a }'; }

kafka_java() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    printf '%s' "$JAVA_HOME/bin/java"
  elif command -v java >/dev/null 2>&1; then
    command -v java
  else
    kafka_die "java not found (Kafka $KAFKA_VERSION needs Java 17+; on Debian: apt-get install -y openjdk-17-jre-headless)"
  fi
}

# The marker holds a hash of the pom, so editing the pom (other log4j version, ...) refetches.
kafka_pom_hash() { sha256sum "$KAFKA_POM" | cut -c1-16; }

kafka_libs_ready() {
  [ -f "$KAFKA_FETCH_MARKER" ] && [ -d "$KAFKA_LIBS" ] &&
    grep -qx "pom=$(kafka_pom_hash)" "$KAFKA_FETCH_MARKER" 2>/dev/null
}

# Copy the broker and tool jars from Maven Central into the cache, once. Safe to call concurrently
# (flock) and after an interrupted run (it fills a temporary folder and renames it at the end).
kafka_fetch() {
  if kafka_libs_ready; then
    kafka_say "Apache Kafka $KAFKA_VERSION already in $KAFKA_LIBS"
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || kafka_die "mvn not found (on Debian: apt-get install -y maven)"
  kafka_java >/dev/null
  mkdir -p "$KAFKA_HOME_DIR"
  (
    flock -w 900 9 || kafka_die "timed out waiting for another fetch of Kafka $KAFKA_VERSION"
    if kafka_libs_ready; then exit 0; fi # another process finished it while we waited
    local started tmp log n
    started="$(kafka_now)"
    tmp="$KAFKA_HOME_DIR/libs.tmp.$$"
    log="$KAFKA_HOME_DIR/fetch.log"
    rm -rf "$tmp"
    kafka_say "fetching Apache Kafka $KAFKA_VERSION from Maven Central ..."
    if ! mvn -B -q -f "$KAFKA_POM" -Dkafka.version="$KAFKA_VERSION" \
      dependency:copy-dependencies -DoutputDirectory="$tmp" >"$log" 2>&1; then
      tail -n 30 "$log" >&2
      rm -rf "$tmp"
      kafka_die "fetching Apache Kafka $KAFKA_VERSION failed (full log: $log)"
    fi
    [ -f "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ] && [ -f "$tmp/kafka-tools-$KAFKA_VERSION.jar" ] ||
      kafka_die "Maven finished but the Kafka jars are missing from $tmp (log: $log)"
    rm -rf "$KAFKA_LIBS"
    mv "$tmp" "$KAFKA_LIBS"
    n="$(find "$KAFKA_LIBS" -name '*.jar' | wc -l)"
    printf 'version=%s\npom=%s\nfetched=%s\n' "$KAFKA_VERSION" "$(kafka_pom_hash)" "$(date -u +%FT%TZ)" >"$KAFKA_FETCH_MARKER"
    kafka_say "fetched $n jars into $KAFKA_LIBS in $(kafka_elapsed "$started") s"
  ) 9>"$KAFKA_HOME_DIR/.fetch.lock" || exit 1
}

kafka_ensure_libs() {
  kafka_libs_ready || kafka_fetch
}

# Run a Kafka command-line tool in the foreground, replacing the current shell, as
# bin/kafka-run-class.sh does: java <opts> -cp '<libs>/*' <main class> "$@".
kafka_exec_tool() {
  local main="$1"
  shift
  kafka_ensure_libs
  # shellcheck disable=SC2086 # word splitting of the option strings is intended
  exec "$(kafka_java)" $KAFKA_TOOLS_JVM_OPTS ${KAFKA_OPTS:-} \
    -Dlog4j2.configurationFile="$KAFKA_TOOLS_LOG4J" \
    -cp "$KAFKA_LIBS/*" "$main" "$@"
}

# Same, but as a child process (for scripts that need the exit code and output).
kafka_run_tool() {
  local main="$1"
  shift
  kafka_ensure_libs
  # shellcheck disable=SC2086
  "$(kafka_java)" $KAFKA_TOOLS_JVM_OPTS ${KAFKA_OPTS:-} \
    -Dlog4j2.configurationFile="$KAFKA_TOOLS_LOG4J" \
    -cp "$KAFKA_LIBS/*" "$main" "$@"
}

# True if any of the given words ($2...) is among the arguments after "--".
# Usage: kafka_has_arg --bootstrap-server --bootstrap-controller -- "$@"
kafka_has_arg() {
  local wanted=() a w
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    wanted+=("$1")
    shift
  done
  shift
  for a in "$@"; do
    for w in "${wanted[@]}"; do
      case "$a" in "$w" | "$w"=*) return 0 ;; esac
    done
  done
  return 1
}

# Tool wrappers: exec <main class> with --bootstrap-server $KAFKA_BOOTSTRAP added unless the caller
# passed a bootstrap option of their own (or only asked for --help / --version).
kafka_exec_tool_with_bootstrap() {
  local main="$1"
  shift
  export KAFKA_SAY_FD=2
  if kafka_has_arg --bootstrap-server --bootstrap-controller --broker-list --help -h --version -- "$@"; then
    kafka_exec_tool "$main" "$@"
  else
    kafka_exec_tool "$main" --bootstrap-server "$KAFKA_BOOTSTRAP" "$@"
  fi
}

#!/usr/bin/env bash
# Producer throughput test.
# Runs org.apache.kafka.tools.ProducerPerformance from the Kafka jars in the cache (fetched from Maven
# Central on first use), as the Apache tarball's bin/kafka-producer-perf-test.sh does.
# This tool has no --bootstrap-server: the brokers go in `--producer-props bootstrap.servers=...`.
# Unless you name bootstrap.servers yourself (or pass --producer.config), the wrapper adds
# bootstrap.servers=${KAFKA_BOOTSTRAP:-127.0.0.1:9092} to --producer-props.
# Example: infra/bin/kafka-producer-perf-test.sh --topic perf --num-records 100000 \
#            --record-size 512 --throughput -1 --producer-props acks=all linger.ms=5
set -euo pipefail
# Full JIT and the tarball's perf-test heap: the fast-start defaults of the other tools would skew numbers.
KAFKA_TOOLS_JVM_OPTS="${KAFKA_TOOLS_JVM_OPTS:--Xmx512m}"
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
export KAFKA_SAY_FD=2
main=org.apache.kafka.tools.ProducerPerformance

for a in "$@"; do
  case "$a" in
    bootstrap.servers=* | --producer.config | --producer.config=* | -h | --help) kafka_exec_tool "$main" "$@" ;;
  esac
done

args=()
added=0
for a in "$@"; do
  args+=("$a")
  if [ "$a" = "--producer-props" ] && [ $added -eq 0 ]; then
    args+=("bootstrap.servers=$KAFKA_BOOTSTRAP")
    added=1
  fi
done
[ $added -eq 1 ] || args+=(--producer-props "bootstrap.servers=$KAFKA_BOOTSTRAP")
kafka_exec_tool "$main" "${args[@]}"

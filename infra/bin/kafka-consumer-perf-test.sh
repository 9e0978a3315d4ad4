#!/usr/bin/env bash
# Consumer throughput test.
# Runs org.apache.kafka.tools.ConsumerPerformance from the Kafka jars in the cache (fetched from Maven Central on first use),
# as the Apache tarball's bin/kafka-consumer-perf-test.sh does; adds --bootstrap-server ${KAFKA_BOOTSTRAP:-127.0.0.1:9092}
# unless you pass one. Example: infra/bin/kafka-consumer-perf-test.sh --topic perf --messages 100000
set -euo pipefail
# Full JIT and the tarball's perf-test heap: the fast-start defaults of the other tools would skew numbers.
KAFKA_TOOLS_JVM_OPTS="${KAFKA_TOOLS_JVM_OPTS:--Xmx512m}"
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
kafka_exec_tool_with_bootstrap org.apache.kafka.tools.ConsumerPerformance "$@"

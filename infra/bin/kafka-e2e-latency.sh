#!/usr/bin/env bash
# One record at a time from producer to consumer: Kafka's own end-to-end latency, the floor under a
# pipeline hop's produce and fetch on this machine and broker.
# Runs org.apache.kafka.tools.EndToEndLatency from the Kafka jars in the cache (fetched from Maven
# Central on first use), as the Apache tarball's bin/kafka-e2e-latency.sh does. Its arguments are
# positional: broker_list topic num_messages producer_acks message_size_bytes [properties_file].
# It sends a record, waits until its consumer has fetched it, and only then sends the next; it
# prints "Avg latency: X ms" and "Percentiles: 50th = a, 99th = b, 99.9th = c" (whole ms).
# Example: infra/bin/kafka-e2e-latency.sh 127.0.0.1:9092 e2e-latency 2000 all 512
set -euo pipefail
# Full JIT and the tarball's perf-test heap: the fast-start defaults of the other tools would skew numbers.
KAFKA_TOOLS_JVM_OPTS="${KAFKA_TOOLS_JVM_OPTS:--Xmx512m}"
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
export KAFKA_SAY_FD=2
kafka_exec_tool org.apache.kafka.tools.EndToEndLatency "$@"

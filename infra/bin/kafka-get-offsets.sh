#!/usr/bin/env bash
# Print the earliest/latest offsets of topic partitions.
# Runs org.apache.kafka.tools.GetOffsetShell from the Kafka jars in the cache (fetched from Maven Central on first use),
# as the Apache tarball's bin/kafka-get-offsets.sh does; adds --bootstrap-server ${KAFKA_BOOTSTRAP:-127.0.0.1:9092}
# unless you pass one. Example: infra/bin/kafka-get-offsets.sh --topic orders --time -1
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
kafka_exec_tool_with_bootstrap org.apache.kafka.tools.GetOffsetShell "$@"

#!/usr/bin/env bash
# Create, list, describe, alter and delete topics.
# Runs org.apache.kafka.tools.TopicCommand from the Kafka jars in the cache (fetched from Maven Central on first use),
# as the Apache tarball's bin/kafka-topics.sh does; adds --bootstrap-server ${KAFKA_BOOTSTRAP:-127.0.0.1:9092}
# unless you pass one. Example: infra/bin/kafka-topics.sh --describe --topic orders
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
kafka_exec_tool_with_bootstrap org.apache.kafka.tools.TopicCommand "$@"

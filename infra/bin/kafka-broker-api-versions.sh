#!/usr/bin/env bash
# Print the API versions every broker supports.
# Runs org.apache.kafka.tools.BrokerApiVersionsCommand from the Kafka jars in the cache (fetched from Maven Central on first use),
# as the Apache tarball's bin/kafka-broker-api-versions.sh does; adds --bootstrap-server ${KAFKA_BOOTSTRAP:-127.0.0.1:9092}
# unless you pass one. Example: infra/bin/kafka-broker-api-versions.sh
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
kafka_exec_tool_with_bootstrap org.apache.kafka.tools.BrokerApiVersionsCommand "$@"

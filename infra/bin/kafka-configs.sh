#!/usr/bin/env bash
# Describe and alter topic, broker, client and group configs.
# Runs kafka.admin.ConfigCommand from the Kafka jars in the cache (fetched from Maven Central on first use),
# as the Apache tarball's bin/kafka-configs.sh does; adds --bootstrap-server ${KAFKA_BOOTSTRAP:-127.0.0.1:9092}
# unless you pass one. Example: infra/bin/kafka-configs.sh --describe --entity-type topics --entity-name orders
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
kafka_exec_tool_with_bootstrap kafka.admin.ConfigCommand "$@"

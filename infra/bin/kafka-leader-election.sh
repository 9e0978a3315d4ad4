#!/usr/bin/env bash
# Elect partition leaders: the preferred replica (first in the assignment), or an unclean one.
# Runs org.apache.kafka.tools.LeaderElectionCommand from the Kafka jars in the cache (fetched from Maven Central on first use),
# as the Apache tarball's bin/kafka-leader-election.sh does; adds --bootstrap-server ${KAFKA_BOOTSTRAP:-127.0.0.1:9092}
# unless you pass one. Example: infra/bin/kafka-leader-election.sh --election-type PREFERRED --all-topic-partitions
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/kafka-common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/kafka-common.sh"
kafka_exec_tool_with_bootstrap org.apache.kafka.tools.LeaderElectionCommand "$@"

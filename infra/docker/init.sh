#!/usr/bin/env bash
# One-shot init job of docker-compose.yml (image target `migrator`), run once postgres and kafka
# are healthy; the services start only after it exits 0. Every step is idempotent.
#   1. create the five <service>_service databases   (PGHOST PGPORT PGUSER PGPASSWORD)
#   2. prisma migrate deploy for each service         (scripts/db/docker-migrate.sh)
#   3. create the Kafka topics                        (KAFKA_BROKERS, KAFKA_REPLICATION_FACTOR,
#                                                      KAFKA_MIN_INSYNC_REPLICAS)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

step() {
  local name="$1" start=$SECONDS
  shift
  echo "[init] $name"
  "$@"
  echo "[init] $name: done in $((SECONDS - start))s"
}

step "create databases" node scripts/db/create-databases.mjs
step "apply migrations" bash scripts/db/docker-migrate.sh
step "provision topics" node dist/tools/provision-topics.js
echo "[init] complete"

# The five services and the environment they get on the local stack (sourced).
SERVICES=(order payment inventory email analytics)
declare -A SERVICE_PORT=([order]=3000 [payment]=3001 [inventory]=3002 [email]=3003 [analytics]=3004)

# The memory levers (NODE_OPTIONS, MALLOC_ARENA_MAX) from their one definition.
declare -A SERVICE_RUNTIME=()
while IFS='=' read -r key value; do
  case "$key" in '' | '#'*) continue ;; esac
  SERVICE_RUNTIME[$key]="$value"
done <"$(dirname "${BASH_SOURCE[0]}")/service-runtime.env"

# Prints `env` arguments for one service on the local stack, one per line (read them with mapfile:
# NODE_OPTIONS holds spaces).
service_env() {
  local name="$1" auth="$PGUSER"
  [ -n "${PGPASSWORD:-}" ] && auth="$PGUSER:$PGPASSWORD"
  # A caller's own NODE_OPTIONS come last, so they can override ours (e.g. --inspect, a larger heap).
  echo "NODE_OPTIONS=${SERVICE_RUNTIME[NODE_OPTIONS]}${NODE_OPTIONS:+ $NODE_OPTIONS}"
  echo "MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-${SERVICE_RUNTIME[MALLOC_ARENA_MAX]}}"
  echo "PORT=${SERVICE_PORT[$name]}"
  echo "DATABASE_URL=postgresql://$auth@$PGHOST:$PGPORT/${name}_service"
  echo "KAFKA_BROKERS=${KAFKA_BROKERS:-127.0.0.1:9092}"
  echo "SMTP_URL=${SMTP_URL:-smtp://127.0.0.1:1025}"
  echo "OTEL_SERVICE_NAME=$name-service"
  echo "OTEL_TRACES_EXPORTER=${OTEL_TRACES_EXPORTER:-zipkin}"
  echo "OTEL_EXPORTER_ZIPKIN_ENDPOINT=${OTEL_EXPORTER_ZIPKIN_ENDPOINT:-http://127.0.0.1:9411/api/v2/spans}"
  echo "LOG_FORMAT=${LOG_FORMAT:-json}"
}

# The five services and the environment they get on the local stack (sourced).
SERVICES=(order payment inventory email analytics)
declare -A SERVICE_PORT=([order]=3000 [payment]=3001 [inventory]=3002 [email]=3003 [analytics]=3004)

# Prints `env` arguments for one service on the local stack.
service_env() {
  local name="$1" auth="$PGUSER"
  [ -n "${PGPASSWORD:-}" ] && auth="$PGUSER:$PGPASSWORD"
  echo "PORT=${SERVICE_PORT[$name]}"
  echo "DATABASE_URL=postgresql://$auth@$PGHOST:$PGPORT/${name}_service"
  echo "KAFKA_BROKERS=${KAFKA_BROKERS:-127.0.0.1:9092}"
  echo "SMTP_URL=${SMTP_URL:-smtp://127.0.0.1:1025}"
  echo "OTEL_SERVICE_NAME=$name-service"
  echo "OTEL_TRACES_EXPORTER=${OTEL_TRACES_EXPORTER:-zipkin}"
  echo "OTEL_EXPORTER_ZIPKIN_ENDPOINT=${OTEL_EXPORTER_ZIPKIN_ENDPOINT:-http://127.0.0.1:9411/api/v2/spans}"
  echo "LOG_FORMAT=${LOG_FORMAT:-json}"
}

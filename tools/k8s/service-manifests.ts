import { createHash } from 'node:crypto';
import {
  IMAGE,
  KAFKA_BOOTSTRAP,
  MIGRATOR_IMAGE,
  NAMESPACE,
  OTLP_ENDPOINT,
  POSTGRES_HOST,
  labelsOf,
} from './cluster-names';
import { credentialsSecretOf, databaseOf } from './postgres-manifests';
import { TOPIC_PARTITIONS, type PipelineService } from './pipeline-services';
import type { Variant } from './variants';

/** Postgres cancels a statement after this (DATABASE_STATEMENT_TIMEOUT_MS, the services' default). */
export const DATABASE_STATEMENT_TIMEOUT_S = 30;
/**
 * /health/live fails after this long with lag and no progress on a partition (HEALTH_STALL_TIMEOUT_MS,
 * the services' default): far above a consumer's longest wait between two attempts.
 */
export const HEALTH_STALL_TIMEOUT_S = 300;
/**
 * SIGTERM to exit, as the services shut down today: endpoints drain (the preStop pause), the
 * consumer finishes its chunk and commits (each statement bounded by the pool's
 * statement_timeout), the outbox relay flushes for up to 10 s (OutboxRelay flushTimeoutMs), spans
 * flush for up to 3 s; plus 2 s of slack. Past it the kubelet kills: the chunk is redelivered and
 * deduplicated by the inbox, nothing is lost.
 */
export const PRE_STOP_PAUSE_S = 5;
export const TERMINATION_GRACE_S = PRE_STOP_PAUSE_S + DATABASE_STATEMENT_TIMEOUT_S + 10 + 3 + 2;
/** Connections one pod opens: its pool plus the relay's own session (it holds the advisory lock). */
export const DATABASE_POOL_SIZE = 10;
export const CONNECTIONS_PER_POD = DATABASE_POOL_SIZE + 1;
/**
 * Memory from BENCHMARKS.md (run of 2026-12-01): 150-153 MiB RSS once ready, 162-183 MiB at 300
 * orders/s; old space is capped at 160 MiB (scripts/lib/service-runtime.env), and the overload run
 * peaked at 221 MiB with 1,000 requests in flight.
 */
const MEMORY = { requests: '192Mi', limits: '256Mi' };
/** KEDA adds a replica per this much lag: one full consumer transaction (CONSUMER_MAX_EVENTS_PER_TRANSACTION). */
const LAG_PER_REPLICA = '500';

const secretEnv = (service: PipelineService) => [
  { name: 'DB_USER', valueFrom: { secretKeyRef: { name: credentialsSecretOf(service), key: 'username' } } },
  {
    name: 'DB_PASSWORD',
    valueFrom: { secretKeyRef: { name: credentialsSecretOf(service), key: 'password' } },
  },
  // The kubelet expands $(VAR) from the variables above; the password must be URL-safe (docs/kubernetes.md).
  {
    name: 'DATABASE_URL',
    value: `postgresql://$(DB_USER):$(DB_PASSWORD)@${POSTGRES_HOST}:5432/${databaseOf(service)}`,
  },
];

export function configData(service: PipelineService, variant: Variant): Record<string, string> {
  return {
    PORT: String(service.port),
    DATABASE_POOL_SIZE: String(DATABASE_POOL_SIZE),
    DATABASE_STATEMENT_TIMEOUT_MS: String(DATABASE_STATEMENT_TIMEOUT_S * 1000),
    HEALTH_STALL_TIMEOUT_MS: String(HEALTH_STALL_TIMEOUT_S * 1000),
    KAFKA_BROKERS: KAFKA_BOOTSTRAP,
    KAFKA_CLIENT_ID: service.name,
    // The KafkaTopic resources own the topics (tools/k8s/kafka-manifests.ts).
    KAFKA_PROVISION_TOPICS: 'false',
    LOG_FORMAT: 'json',
    OTEL_SERVICE_NAME: service.name,
    OTEL_TRACES_EXPORTER: 'otlp',
    OTEL_EXPORTER_OTLP_ENDPOINT: OTLP_ENDPOINT,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: variant.tracesSampleRatio,
    ...service.extraEnv,
  };
}

const securityContext = {
  runAsNonRoot: true,
  runAsUser: 1000, // `node` in the image
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};

function migrationJob(service: PipelineService): object {
  // Not the Deployment's labels: its Service and PDB must not select the Job's pod.
  const migrationLabels = {
    ...labelsOf(`${service.name}-migrate`),
    'app.kubernetes.io/component': 'migration',
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: `${service.name}-migrate`,
      namespace: NAMESPACE,
      labels: migrationLabels,
    },
    spec: {
      backoffLimit: 10, // the database may still be starting
      template: {
        metadata: { labels: migrationLabels },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'migrate',
              image: MIGRATOR_IMAGE,
              command: [
                'node_modules/.bin/prisma',
                'migrate',
                'deploy',
                '--config',
                `prisma/${service.service}/prisma.config.ts`,
              ],
              env: secretEnv(service),
              securityContext,
              resources: {
                requests: { cpu: '100m', memory: '256Mi' },
                limits: { cpu: '1', memory: '512Mi' },
              },
            },
          ],
        },
      },
    },
  };
}

function deployment(service: PipelineService, variant: Variant, config: Record<string, string>): object {
  const labels = labelsOf(service.name);
  const httpGet = (path: string) => ({ httpGet: { path, port: 'http' } });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: service.name, namespace: NAMESPACE, labels },
    spec: {
      replicas: variant.serviceReplicas,
      selector: { matchLabels: labels },
      // One new pod at a time and none down: each change of the group's members is a rebalance.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: {
          labels,
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(service.port),
            'prometheus.io/path': '/metrics',
            // A changed ConfigMap rolls the pods.
            'checksum/config': createHash('sha256').update(JSON.stringify(config)).digest('hex').slice(0, 16),
          },
        },
        spec: {
          terminationGracePeriodSeconds: TERMINATION_GRACE_S,
          // Starts once the migration Job applied everything (status exits 0 only when up to date).
          initContainers: [
            {
              name: 'wait-for-migrations',
              image: MIGRATOR_IMAGE,
              command: [
                'sh',
                '-c',
                `until node scripts/db/migrate.mjs status --service ${service.service}; do sleep 5; done`,
              ],
              env: secretEnv(service),
              securityContext,
              resources: {
                requests: { cpu: '50m', memory: '128Mi' },
                limits: { cpu: '500m', memory: '256Mi' },
              },
            },
          ],
          containers: [
            {
              name: 'service',
              image: IMAGE,
              ports: [{ name: 'http', containerPort: service.port }],
              envFrom: [{ configMapRef: { name: `${service.name}-config` } }],
              env: [{ name: 'SERVICE', value: service.service }, ...secretEnv(service)],
              // What each endpoint checks: docs/reliability.md#health-endpoints. The HTTP server
              // listens once the consumer has joined its group: that is the start.
              startupProbe: { ...httpGet('/health/live'), periodSeconds: 2, failureThreshold: 60 },
              // Restarts a wedged pod only (a partition with lag and no progress for
              // HEALTH_STALL_TIMEOUT_MS), never for an outage of Kafka or Postgres. The lag read it
              // does gives up after 2 s, within the probe's timeout.
              livenessProbe: {
                ...httpGet('/health/live'),
                periodSeconds: 10,
                timeoutSeconds: 3,
                failureThreshold: 3,
              },
              // The database only: with Kafka down the pods stay in their Service (POST /orders
              // lands in the outbox). The broker and the consumer: /health/consumer, no probe.
              readinessProbe: {
                ...httpGet('/health/ready'),
                periodSeconds: 5,
                timeoutSeconds: 3,
                failureThreshold: 3,
              },
              // The Service stops sending requests before SIGTERM arrives.
              lifecycle: { preStop: { exec: { command: ['sleep', String(PRE_STOP_PAUSE_S)] } } },
              resources: {
                requests: {
                  cpu: variant.name === 'prod' ? service.prodCpuRequest : '100m',
                  memory: MEMORY.requests,
                },
                // Node runs JavaScript on one thread: a core is the most it uses for long.
                limits: { cpu: '1', memory: MEMORY.limits },
              },
              securityContext,
            },
          ],
        },
      },
    },
  };
}

function scaledObject(service: PipelineService, variant: Variant): object {
  const sagaTopics = service.consumes.filter((topic) => !topic.endsWith('.dead-letter'));
  return {
    apiVersion: 'keda.sh/v1alpha1',
    kind: 'ScaledObject',
    metadata: { name: service.name, namespace: NAMESPACE, labels: labelsOf(service.name) },
    spec: {
      scaleTargetRef: { name: service.name },
      minReplicaCount: variant.serviceReplicas,
      // More members than partitions would sit idle.
      maxReplicaCount: TOPIC_PARTITIONS,
      pollingInterval: 15,
      cooldownPeriod: 300,
      advanced: {
        horizontalPodAutoscalerConfig: {
          // Every step is a rebalance: scale down slowly, one pod a minute.
          behavior: {
            scaleDown: {
              stabilizationWindowSeconds: 300,
              policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }],
            },
          },
        },
      },
      triggers: sagaTopics.map((topic) => ({
        type: 'kafka',
        metadata: {
          bootstrapServers: KAFKA_BOOTSTRAP,
          consumerGroup: service.name,
          topic,
          lagThreshold: LAG_PER_REPLICA,
          offsetResetPolicy: 'earliest',
          allowIdleConsumers: 'false',
        },
      })),
    },
  };
}

/** Everything one service needs, in the order `kubectl apply` creates it. */
export function serviceManifests(service: PipelineService, variant: Variant): object[] {
  const config = configData(service, variant);
  const labels = labelsOf(service.name);
  return [
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${service.name}-config`, namespace: NAMESPACE, labels },
      data: config,
    },
    migrationJob(service),
    deployment(service, variant, config),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: service.name, namespace: NAMESPACE, labels },
      spec: { selector: labels, ports: [{ name: 'http', port: service.port, targetPort: 'http' }] },
    },
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: service.name, namespace: NAMESPACE, labels },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
    ...(variant.autoscaling ? [scaledObject(service, variant)] : []),
  ];
}

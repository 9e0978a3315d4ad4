// What the manifests must keep true whatever the variant: topics as the contracts declare them,
// consumers never more than partitions, every service complete and configured as its own config
// schema demands, credentials only by reference, and prod's durability settings.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_TOPIC_PARTITIONS,
  EventConsumers,
  ServiceNames,
  TopicCatalogue,
  deadLetterTopic,
} from '@pipeline/contracts';
import { topicConfig } from '@pipeline/service-kit';
import {
  Container,
  ROOT,
  VARIANT_NAMES,
  loadVariant,
  named,
  ofKind,
  resolveEnv,
  type Manifest,
} from './k8s-support';

const Pod = z.object({
  terminationGracePeriodSeconds: z.number().default(30), // the Kubernetes default
  initContainers: z.array(Container).default([]),
  containers: z.array(Container.passthrough()),
});
const podOf = (manifest: Manifest) =>
  Pod.parse(
    z.object({ spec: z.object({ template: z.object({ spec: z.unknown() }) }) }).parse(manifest).spec.template
      .spec,
  );
const specOf = (manifest: Manifest): Record<string, unknown> =>
  z.record(z.string(), z.unknown()).parse(manifest.spec);

/** The service's own config schema, loaded by path: tests may not import apps (module boundaries). */
async function configSchemaOf(service: string): Promise<z.ZodType> {
  const module = (await import(path.join(ROOT, `apps/${service}-service/src/config.ts`))) as Record<
    string,
    unknown
  >;
  return z.custom<z.ZodType>((value) => value instanceof z.ZodType).parse(module[`${service}ConfigSchema`]);
}

describe.each(VARIANT_NAMES)('infra/k8s/%s', (variant) => {
  const { manifests } = loadVariant(variant);
  const topics = ofKind(manifests, 'KafkaTopic');
  const kafka = named(manifests, 'Kafka', 'pipeline');
  const nodePool = named(manifests, 'KafkaNodePool', 'dual-role');
  const brokers = z.object({ replicas: z.number() }).parse(nodePool.spec).replicas;
  const replication = variant === 'prod' ? { factor: 3, minIsr: 2 } : { factor: 1, minIsr: 1 };

  it('has one KafkaTopic per topic of the contracts, with the settings provisioning applies, and nothing extra', () => {
    expect(topics.map((t) => specOf(t).topicName).sort()).toEqual(TopicCatalogue.map((s) => s.name).sort());
    for (const spec of TopicCatalogue) {
      const topic = topics.find((t) => specOf(t).topicName === spec.name);
      const expected = topicConfig(spec, {
        partitions: DEFAULT_TOPIC_PARTITIONS,
        replicationFactor: replication.factor,
        minInsyncReplicas: replication.minIsr,
      });
      expect(topic?.metadata.labels?.['strimzi.io/cluster']).toBe(kafka.metadata.name);
      expect(specOf(topic as Manifest)).toEqual({
        topicName: spec.name,
        partitions: expected.numPartitions,
        replicas: expected.replicationFactor,
        config: Object.fromEntries(
          (expected.configEntries ?? []).map(({ name, value }) => [
            name,
            /^\d+$/.test(value) ? Number(value) : value,
          ]),
        ),
      });
    }
  });

  it(`replicates every topic ${replication.factor}x with min.insync.replicas ${replication.minIsr}, on enough brokers`, () => {
    for (const topic of topics) {
      expect(specOf(topic).replicas, topic.metadata.name).toBe(replication.factor);
      expect(z.record(z.string(), z.unknown()).parse(specOf(topic).config)['min.insync.replicas']).toBe(
        replication.minIsr,
      );
    }
    expect(brokers).toBe(replication.factor);
    expect(
      z.object({ kafka: z.object({ config: z.record(z.string(), z.unknown()) }) }).parse(kafka.spec).kafka
        .config,
    ).toMatchObject({
      'auto.create.topics.enable': false,
      'min.insync.replicas': replication.minIsr,
      'offsets.topic.replication.factor': replication.factor,
      'transaction.state.log.replication.factor': replication.factor,
    });
  });

  it('runs Postgres as the variant says: one instance, or three with a synchronous standby', () => {
    const cluster = z
      .object({
        instances: z.number(),
        postgresql: z.object({ synchronous: z.object({ number: z.number() }).optional() }),
      })
      .parse(named(manifests, 'Cluster', 'pipeline-pg').spec);
    if (variant === 'prod') {
      expect(cluster.instances).toBe(3);
      expect(cluster.postgresql.synchronous?.number).toBe(1);
    } else {
      expect(cluster.instances).toBe(1);
      expect(cluster.postgresql.synchronous).toBeUndefined();
    }
  });

  it('holds no Secret and no inline credential: every password comes from a secretKeyRef', () => {
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    const text = JSON.stringify(manifests);
    expect(text).not.toMatch(/"(password|PGPASSWORD|DB_PASSWORD)"\s*:\s*"/i);
    expect(text).not.toMatch(/postgres(ql)?:\/\/[^$"]*:[^$"@]+@/); // a URL with a literal password
  });

  it('keeps the database connections of every pod at its maximum count under max_connections', () => {
    const maxConnections = Number(
      z
        .object({ postgresql: z.object({ parameters: z.object({ max_connections: z.string() }) }) })
        .parse(named(manifests, 'Cluster', 'pipeline-pg').spec).postgresql.parameters.max_connections,
    );
    const pods = ServiceNames.reduce((sum, service) => {
      const scaled = ofKind(manifests, 'ScaledObject').find((s) => s.metadata.name === `${service}-service`);
      const deployment = named(manifests, 'Deployment', `${service}-service`);
      return sum + Number((scaled ? specOf(scaled).maxReplicaCount : specOf(deployment).replicas) ?? 0);
    }, 0);
    // Each pod: DATABASE_POOL_SIZE plus the relay's own session; 10 left for the migrations and operators.
    expect(pods * (10 + 1) + 10).toBeLessThanOrEqual(maxConnections);
  });

  describe.each(ServiceNames)('%s-service', (service) => {
    const name = `${service}-service`;
    const deployment = named(manifests, 'Deployment', name);
    const pod = podOf(deployment);
    const container = pod.containers[0] as Container & Record<string, unknown>;
    const podLabels = z
      .object({ template: z.object({ metadata: z.object({ labels: z.record(z.string(), z.string()) }) }) })
      .parse(deployment.spec).template.metadata.labels;
    const selects = (manifest: Manifest, at: (spec: Record<string, unknown>) => unknown) =>
      Object.entries(z.record(z.string(), z.string()).parse(at(specOf(manifest)))).every(
        ([k, v]) => podLabels[k] === v,
      );
    const consumed = [...new Set(EventConsumers[service].map((s) => s.topic as string))];

    it('passes its own config schema with the environment its pods get', async () => {
      const env = resolveEnv(container, manifests);
      const result = (await configSchemaOf(service)).safeParse(env);
      expect(result.error?.issues ?? []).toEqual([]);
      expect(env).toMatchObject({
        KAFKA_PROVISION_TOPICS: 'false',
        SERVICE: service,
        OTEL_SERVICE_NAME: name,
        OTEL_TRACES_EXPORTER: 'otlp',
      });
      expect(env.OTEL_EXPORTER_OTLP_ENDPOINT).toMatch(/^http:\/\/[a-z0-9.-]+:4318$/);
      expect(new URL(env.DATABASE_URL ?? '').pathname).toBe(`/${service}_service`);
      expect(env.KAFKA_BROKERS).toBe('pipeline-kafka-bootstrap:9092');
    });

    it('probes /health/live and /health/ready, sets requests and limits, and is scraped on /metrics', () => {
      expect(container).toMatchObject({
        startupProbe: { httpGet: { path: '/health/live' } },
        livenessProbe: { httpGet: { path: '/health/live' } },
        readinessProbe: { httpGet: { path: '/health/ready' } },
        resources: {
          requests: { cpu: expect.stringMatching(/^\d+m$/) as unknown, memory: '192Mi' },
          limits: { cpu: '1', memory: '256Mi' },
        },
      });
      const annotations = z
        .object({
          template: z.object({ metadata: z.object({ annotations: z.record(z.string(), z.string()) }) }),
        })
        .parse(deployment.spec).template.metadata.annotations;
      expect(annotations).toMatchObject({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics' });
      expect(annotations['prometheus.io/port']).toBe(resolveEnv(container, manifests).PORT);
    });

    it('has a Service and a PodDisruptionBudget that select its pods, and no other object does', () => {
      expect(selects(named(manifests, 'Service', name), (s) => s.selector)).toBe(true);
      const pdb = named(manifests, 'PodDisruptionBudget', name);
      expect(selects(pdb, (s) => z.object({ matchLabels: z.unknown() }).parse(s.selector).matchLabels)).toBe(
        true,
      );
      expect(specOf(pdb).maxUnavailable).toBe(1);
      const job = named(manifests, 'Job', `${name}-migrate`);
      const jobLabels = z
        .record(z.string(), z.string())
        .parse(
          z.object({ template: z.object({ metadata: z.object({ labels: z.unknown() }) }) }).parse(job.spec)
            .template.metadata.labels,
        );
      expect(jobLabels['app.kubernetes.io/name']).not.toBe(podLabels['app.kubernetes.io/name']);
    });

    it('allows a batch and a commit after SIGTERM: grace ≥ preStop + statement bound + relay flush + span flush', () => {
      const statementTimeoutS = Number(resolveEnv(container, manifests).DATABASE_STATEMENT_TIMEOUT_MS) / 1000;
      expect(statementTimeoutS).toBeGreaterThan(0);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(5 + statementTimeoutS + 10 + 3);
    });

    it('starts only after its migration Job: prisma migrate deploy in the Job, an init container waiting for it', () => {
      const job = podOf(named(manifests, 'Job', `${name}-migrate`));
      expect(job.containers[0]?.command).toEqual([
        'node_modules/.bin/prisma',
        'migrate',
        'deploy',
        '--config',
        `prisma/${service}/prisma.config.ts`,
      ]);
      expect(job.containers[0]?.image).toBe(pod.initContainers[0]?.image);
      expect(pod.initContainers[0]?.command?.join(' ')).toContain(
        `scripts/db/migrate.mjs status --service ${service}`,
      );
      expect(resolveEnv(job.containers[0] as Container, manifests).DATABASE_URL).toBe(
        resolveEnv(container, manifests).DATABASE_URL,
      );
    });

    it('never runs more consumers than partitions, and autoscales on the lag of what it consumes in prod', () => {
      expect(Number(specOf(deployment).replicas)).toBeLessThanOrEqual(DEFAULT_TOPIC_PARTITIONS);
      const scaled = ofKind(manifests, 'ScaledObject').filter((s) => s.metadata.name === name);
      if (variant === 'dev') {
        expect(scaled).toEqual([]);
        expect(specOf(deployment).replicas).toBe(1);
        return;
      }
      const spec = z
        .object({
          scaleTargetRef: z.object({ name: z.string() }),
          minReplicaCount: z.number(),
          maxReplicaCount: z.number(),
          triggers: z.array(z.object({ type: z.string(), metadata: z.record(z.string(), z.string()) })),
        })
        .parse(scaled[0]?.spec);
      expect(spec.scaleTargetRef.name).toBe(name);
      expect(spec.minReplicaCount).toBeGreaterThanOrEqual(2);
      expect(spec.maxReplicaCount).toBeLessThanOrEqual(DEFAULT_TOPIC_PARTITIONS);
      expect(spec.triggers.map((t) => t.metadata.topic).sort()).toEqual([...consumed].sort());
      for (const trigger of spec.triggers) {
        expect(trigger).toMatchObject({
          type: 'kafka',
          metadata: { consumerGroup: name, allowIdleConsumers: 'false' },
        });
        expect(topics.map((t) => specOf(t).topicName)).toContain(trigger.metadata.topic);
      }
      expect(consumed).not.toContain(deadLetterTopic(service));
    });
  });
});

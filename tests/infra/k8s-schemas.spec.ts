// infra/k8s/ against the schemas: every built-in object through kubernetes-models' validators
// (the Kubernetes API's OpenAPI schemas), every KEDA object through @kubernetes-models/keda's;
// Strimzi and CloudNativePG have no such package, so their objects get a structural check of the
// fields this project relies on.
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { ConfigMap, Namespace, Service } from 'kubernetes-models/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { VARIANT_NAMES, loadVariant, ofKind } from './k8s-support';

type Validator = (data: unknown) => void;
// Under this repo's node10 resolution TypeScript does not see the base Model's validate(); it is
// there at run time (the "validators are live" test below proves it).
const validatorOf = (Model: new (data: never) => object): Validator => {
  return (data) => (new Model(data as never) as { validate(): void }).validate();
};
const BUILT_IN: Record<string, Validator> = {
  'v1/Namespace': validatorOf(Namespace),
  'v1/ConfigMap': validatorOf(ConfigMap),
  'v1/Service': validatorOf(Service),
  'apps/v1/Deployment': validatorOf(Deployment),
  'batch/v1/Job': validatorOf(Job),
  'policy/v1/PodDisruptionBudget': validatorOf(PodDisruptionBudget),
  'keda.sh/v1alpha1/ScaledObject': validatorOf(ScaledObject),
};

const strimziLabel = z.object({ 'strimzi.io/cluster': z.string() });
const StrimziSchemas: Record<string, z.ZodType> = {
  Kafka: z.object({
    spec: z
      .object({
        kafka: z
          .object({
            version: z.string().regex(/^\d+\.\d+\.\d+$/),
            listeners: z
              .array(
                z.object({
                  name: z.string().regex(/^[a-z0-9]{1,11}$/),
                  port: z.number().int().min(9092),
                  type: z.enum(['internal', 'route', 'loadbalancer', 'nodeport', 'ingress', 'cluster-ip']),
                  tls: z.boolean(),
                }),
              )
              .min(1),
            config: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
          })
          .strict(), // v1 moved replicas and storage to KafkaNodePool: none may be here
        entityOperator: z.object({ topicOperator: z.object({}) }),
      })
      .strict(), // no `zookeeper`: KRaft only
  }),
  KafkaNodePool: z.object({
    metadata: z.object({ labels: strimziLabel }),
    spec: z.object({
      replicas: z.number().int().min(1),
      roles: z.array(z.enum(['controller', 'broker'])).min(1),
      storage: z.object({
        type: z.literal('jbod'),
        volumes: z
          .array(
            z.object({
              id: z.number().int(),
              type: z.literal('persistent-claim'),
              size: z.string(),
              kraftMetadata: z.literal('shared').optional(),
            }),
          )
          .min(1),
      }),
    }),
  }),
  KafkaTopic: z.object({
    metadata: z.object({ name: z.string().regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/), labels: strimziLabel }),
    spec: z
      .object({
        topicName: z.string(),
        partitions: z.number().int().min(1),
        replicas: z.number().int().min(1).max(32767),
        config: z.record(z.string(), z.union([z.string(), z.number()])),
      })
      .strict(),
  }),
};

const CnpgSchemas: Record<string, z.ZodType> = {
  Cluster: z.object({
    spec: z.object({
      instances: z.number().int().min(1),
      storage: z.object({ size: z.string().regex(/^\d+Gi$/) }),
      postgresql: z.object({
        parameters: z.record(z.string(), z.string()),
        synchronous: z
          .object({
            method: z.enum(['any', 'first']),
            number: z.number().int().min(1),
            dataDurability: z.enum(['required', 'preferred']),
          })
          .optional(),
      }),
      managed: z.object({
        roles: z.array(
          z
            .object({
              name: z.string(),
              ensure: z.literal('present'),
              login: z.literal(true),
              passwordSecret: z.object({ name: z.string() }).strict(),
            })
            .strict(), // a role's password only ever comes from its Secret
        ),
      }),
    }),
  }),
  Database: z.object({
    spec: z
      .object({
        name: z.string().regex(/^[a-z_]+$/),
        owner: z.string(),
        cluster: z.object({ name: z.string() }).strict(),
        ensure: z.literal('present'),
      })
      .strict(),
  }),
};

describe.each(VARIANT_NAMES)('infra/k8s/%s', (variant) => {
  const { manifests } = loadVariant(variant);

  it('holds only objects of the APIs it is validated against', () => {
    for (const manifest of manifests) {
      const key = `${manifest.apiVersion}/${manifest.kind}`;
      const known =
        key in BUILT_IN ||
        (manifest.apiVersion === 'kafka.strimzi.io/v1' && manifest.kind in StrimziSchemas) ||
        (manifest.apiVersion === 'postgresql.cnpg.io/v1' && manifest.kind in CnpgSchemas);
      expect(known, `${key} ${manifest.metadata.name}`).toBe(true);
    }
  });

  it('passes the Kubernetes and KEDA API schemas, object by object', () => {
    const checked = manifests.filter((m) => `${m.apiVersion}/${m.kind}` in BUILT_IN);
    expect(checked.length).toBeGreaterThanOrEqual(26);
    for (const manifest of checked) {
      const validate = BUILT_IN[`${manifest.apiVersion}/${manifest.kind}`];
      expect(() => validate?.(manifest), `${manifest.kind} ${manifest.metadata.name}`).not.toThrow();
    }
  });

  it('rejects what the schemas forbid (the validators are live)', () => {
    const [deployment] = ofKind(manifests, 'Deployment');
    expect(() => BUILT_IN['apps/v1/Deployment']?.({ ...deployment, spec: { replicas: 'three' } })).toThrow();
    const [pdb] = ofKind(manifests, 'PodDisruptionBudget');
    expect(() =>
      BUILT_IN['policy/v1/PodDisruptionBudget']?.({ ...pdb, spec: { maxUnavailable: [] } }),
    ).toThrow();
  });

  it('gives Strimzi and CloudNativePG objects the fields the project relies on', () => {
    for (const manifest of manifests) {
      const schema =
        manifest.apiVersion === 'kafka.strimzi.io/v1'
          ? StrimziSchemas[manifest.kind]
          : manifest.apiVersion === 'postgresql.cnpg.io/v1'
            ? CnpgSchemas[manifest.kind]
            : undefined;
      if (!schema) continue;
      const result = schema.safeParse(manifest);
      expect(result.error?.issues ?? [], `${manifest.kind} ${manifest.metadata.name}`).toEqual([]);
    }
  });

  it('puts every namespaced object in the one namespace it declares', () => {
    const [namespace, ...others] = ofKind(manifests, 'Namespace');
    expect(others).toEqual([]);
    for (const manifest of manifests.filter((m) => m.kind !== 'Namespace'))
      expect(manifest.metadata.namespace, `${manifest.kind} ${manifest.metadata.name}`).toBe(
        namespace?.metadata.name,
      );
  });
});

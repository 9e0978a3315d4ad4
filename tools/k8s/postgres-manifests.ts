import { NAMESPACE, POSTGRES_CLUSTER, labelsOf } from './cluster-names';
import type { PipelineService } from './pipeline-services';
import type { Variant } from './variants';

export const CNPG_API = 'postgresql.cnpg.io/v1';

/** `order` → role and database `order_service`, as locally (scripts/db/create-databases.mjs). */
export const databaseOf = (service: PipelineService): string => `${service.service}_service`;
/** A `kubernetes.io/basic-auth` Secret (username, password) the operator of the cluster creates. */
export const credentialsSecretOf = (service: PipelineService): string => `${service.name}-db`;

export function postgresCluster(variant: Variant, services: readonly PipelineService[]): object[] {
  const cluster = {
    apiVersion: CNPG_API,
    kind: 'Cluster',
    metadata: { name: POSTGRES_CLUSTER, namespace: NAMESPACE, labels: labelsOf('postgres') },
    spec: {
      instances: variant.postgresInstances,
      storage: { size: variant.postgresStorage },
      postgresql: {
        parameters: { max_connections: String(variant.postgresMaxConnections) },
        // A commit returns once a standby has it: losing the primary loses no acknowledged write.
        ...(variant.postgresSyncStandbys > 0
          ? {
              synchronous: {
                method: 'any',
                number: variant.postgresSyncStandbys,
                dataDurability: 'required',
              },
            }
          : {}),
      },
      managed: {
        roles: services.map((service) => ({
          name: databaseOf(service),
          ensure: 'present',
          login: true,
          passwordSecret: { name: credentialsSecretOf(service) },
        })),
      },
      resources: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '1Gi' } },
    },
  };
  const databases = services.map((service) => ({
    apiVersion: CNPG_API,
    kind: 'Database',
    metadata: { name: databaseOf(service).replace(/_/g, '-'), namespace: NAMESPACE },
    spec: {
      name: databaseOf(service),
      owner: databaseOf(service),
      cluster: { name: POSTGRES_CLUSTER },
      ensure: 'present',
    },
  }));
  return [cluster, ...databases];
}

// Reads the committed manifests of infra/k8s/<variant>/ (tools/k8s renders them; its spec checks
// they are current) and resolves what a container's environment would be.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse } from 'yaml';
import { z } from 'zod';

export const ROOT = path.resolve(__dirname, '../..');
export const VARIANT_NAMES = ['dev', 'prod'] as const;
export type VariantName = (typeof VARIANT_NAMES)[number];

const Manifest = z
  .object({
    apiVersion: z.string(),
    kind: z.string(),
    metadata: z.object({
      name: z.string(),
      namespace: z.string().optional(),
      labels: z.record(z.string(), z.string()).optional(),
    }),
  })
  .passthrough();
export type Manifest = z.infer<typeof Manifest> & Record<string, unknown>;

export function loadVariant(variant: VariantName): { files: string[]; manifests: Manifest[] } {
  const dir = path.join(ROOT, 'infra/k8s', variant);
  const kustomization = z
    .object({ resources: z.array(z.string()) })
    .parse(parse(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')));
  const manifests = kustomization.resources.flatMap((file) =>
    parseAllDocuments(readFileSync(path.join(dir, file), 'utf8')).map((document) =>
      Manifest.parse(document.toJS()),
    ),
  );
  return { files: kustomization.resources, manifests };
}

export const ofKind = (manifests: Manifest[], kind: string): Manifest[] =>
  manifests.filter((manifest) => manifest.kind === kind);

export function named(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

const EnvVar = z.object({
  name: z.string(),
  value: z.string().optional(),
  valueFrom: z
    .object({ secretKeyRef: z.object({ name: z.string(), key: z.string() }).optional() })
    .optional(),
});
export const Container = z.object({
  name: z.string(),
  image: z.string(),
  command: z.array(z.string()).optional(),
  envFrom: z.array(z.object({ configMapRef: z.object({ name: z.string() }) })).optional(),
  env: z.array(EnvVar).optional(),
});
export type Container = z.infer<typeof Container>;

/**
 * The environment the kubelet would give the container: envFrom ConfigMaps first, then `env` in
 * order with `$(VAR)` expanded; a Secret's value is a URL-safe stand-in naming the Secret and key.
 */
export function resolveEnv(container: Container, manifests: Manifest[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { configMapRef } of container.envFrom ?? []) {
    const data = z
      .record(z.string(), z.string())
      .parse(named(manifests, 'ConfigMap', configMapRef.name).data);
    Object.assign(env, data);
  }
  for (const variable of container.env ?? []) {
    const secret = variable.valueFrom?.secretKeyRef;
    env[variable.name] = secret
      ? `secret-${secret.name}-${secret.key}`
      : (variable.value ?? '').replace(
          /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
          (ref, key: string) => env[key] ?? ref,
        );
  }
  return env;
}

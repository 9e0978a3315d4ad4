import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { workspaceRoot, type FileChange, type Tree } from '@nx/devkit';
import { describe, expect, it } from 'vitest';
import { serviceGenerator, type ServiceGeneratorSchema } from './generator.js';

/** The workspace as it is on disk, with every write kept in memory: the generator changes nothing. */
function overlayTree(root: string): Tree {
  const writes = new Map<string, Buffer | null>();
  const onDisk = (file: string): string => path.join(root, file);
  const tree: Tree = {
    root,
    read: ((file: string, encoding?: BufferEncoding) => {
      const written = writes.get(file);
      const content =
        written !== undefined ? written : existsSync(onDisk(file)) ? readFileSync(onDisk(file)) : null;
      return content === null ? null : encoding ? content.toString(encoding) : content;
    }) as Tree['read'],
    write: (file, content) => void writes.set(file, Buffer.from(content)),
    exists: (file) => (writes.has(file) ? writes.get(file) !== null : existsSync(onDisk(file))),
    delete: (file) => void writes.set(file, null),
    rename: (from, to) => {
      writes.set(to, tree.read(from));
      writes.set(from, null);
    },
    isFile: (file) =>
      writes.get(file) != null || (existsSync(onDisk(file)) && statSync(onDisk(file)).isFile()),
    children: (dir) => {
      const fromDisk = existsSync(onDisk(dir)) ? readdirSync(onDisk(dir)) : [];
      const written = [...writes.keys()]
        .filter((file) => file.startsWith(`${dir}/`))
        .map((file) => file.slice(dir.length + 1).split('/')[0]!);
      return [...new Set([...fromDisk, ...written])];
    },
    listChanges: (): FileChange[] =>
      [...writes].map(([file, content]) => ({
        path: file,
        type: content === null ? 'DELETE' : existsSync(onDisk(file)) ? 'UPDATE' : 'CREATE',
        content,
      })),
    changePermissions: () => undefined,
  };
  return tree;
}

const SHIPPING: ServiceGeneratorSchema = {
  name: 'shipping',
  consumes: 'order.confirmed',
  produces: 'shipment.scheduled',
};

describe('nx g @pipeline/tools:service', () => {
  it('adds the service, its contracts, database and wiring, and writes nothing to disk', async () => {
    const tree = overlayTree(workspaceRoot);
    await serviceGenerator(tree, SHIPPING);
    const changed = tree.listChanges().map((change) => `${change.type} ${change.path}`);
    expect(changed).toEqual(
      expect.arrayContaining([
        'CREATE apps/shipping-service/src/app.module.ts',
        'CREATE apps/shipping-service/src/schedule-shipment/schedule-shipment.module.ts',
        'CREATE apps/shipping-service/src/schedule-shipment/schedule-shipment-when-order-confirmed.handler.ts',
        'CREATE apps/shipping-service/src/schedule-shipment/schedule-shipment-when-order-confirmed.handler.spec.ts',
        'CREATE libs/contracts/src/events/shipment-scheduled.event.ts',
        'UPDATE libs/contracts/src/topics/topic-names.ts',
        'UPDATE tools/stack/stack-plan.ts',
        'UPDATE tools/bench/stack-under-test.ts',
        'UPDATE docker-compose.yml',
        'UPDATE eslint.config.mjs',
        'UPDATE README.md',
      ]),
    );
    expect(existsSync(path.join(workspaceRoot, 'apps/shipping-service'))).toBe(false);
    expect(tree.read('libs/contracts/src/topics/topic-names.ts', 'utf-8')).toContain(
      "'analytics', 'shipping'] as const",
    );
    expect(tree.read('tools/stack/stack-plan.ts', 'utf-8')).toMatch(/shipping: 3006,/);
    expect(JSON.parse(tree.read('apps/shipping-service/project.json', 'utf-8')!)).toMatchObject({
      tags: ['type:app', 'scope:shipping'],
    });
  });

  it('writes the outbox and inbox from prisma/shared, as every existing service has them', async () => {
    const tree = overlayTree(workspaceRoot);
    await serviceGenerator(tree, SHIPPING);
    // prisma/order's copies are checked against prisma/shared by tests/infra/shared-schema.spec.ts.
    expect(tree.read('prisma/shipping/outbox-inbox.prisma', 'utf-8')).toBe(
      readFileSync(path.join(workspaceRoot, 'prisma/order/outbox-inbox.prisma'), 'utf8'),
    );
    const init = tree.children('prisma/shipping/migrations').find((name) => name.endsWith('_init'));
    expect(tree.read(`prisma/shipping/migrations/${init}/migration.sql`, 'utf-8')).toBe(
      readFileSync(path.join(workspaceRoot, 'prisma/shared/outbox-inbox.init.sql'), 'utf8'),
    );
    // Then the shared migrations that changed them since, after the init, as the others have them.
    const after = tree
      .children('prisma/shipping/migrations')
      .filter((name) => /^\d+_/.test(name) && name > init!);
    expect(after.map((name) => name.replace(/^\d+_/, ''))).toEqual([
      'outbox_notify_opt_out',
      'outbox_rows_by_key',
    ]);
    for (const name of after)
      expect(tree.read(`prisma/shipping/migrations/${name}/migration.sql`, 'utf-8')).toBe(
        readFileSync(
          path.join(workspaceRoot, `prisma/shared/migrations/${name.replace(/^\d+_/, '')}.sql`),
          'utf8',
        ),
      );
  });

  it.each([
    [{ ...SHIPPING, consumes: 'order.shipped' }, /not declared in libs\/contracts/],
    [{ ...SHIPPING, name: 'email' }, /exists already/],
    [{ ...SHIPPING, name: 'Shipping' }, /lower-case letters and digits/],
    [{ ...SHIPPING, produces: 'order.confirmed' }, /already declared/],
    [{ ...SHIPPING, produces: 'order.shipped' }, /topic "orders" exists/],
  ])('refuses %j', async (options, message) => {
    await expect(serviceGenerator(overlayTree(workspaceRoot), options)).rejects.toThrow(message);
  });
});

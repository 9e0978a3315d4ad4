// The NestJS application of a generated service, in the shape of the five: thin main/config/
// telemetry/app.module, and one feature module per use case holding its handlers and their tests.
import type { ConsumedHandler, ServicePlan } from './plan.js';

export function appFiles(plan: ServicePlan): Record<string, string> {
  const root = `apps/${plan.app}`;
  const files: Record<string, string> = {
    [`${root}/project.json`]: projectJson(plan),
    [`${root}/src/main.ts`]: mainTs(plan),
    [`${root}/src/telemetry.ts`]: telemetryTs(plan),
    [`${root}/src/config.ts`]: configTs(plan),
    [`${root}/src/app.module.ts`]: appModuleTs(plan),
    [`${root}/src/${plan.useCase}/${plan.useCase}.module.ts`]: useCaseModuleTs(plan),
  };
  for (const handler of plan.consumed) {
    files[`${root}/src/${plan.useCase}/${handler.file}.handler.ts`] = handlerTs(plan, handler);
    files[`${root}/src/${plan.useCase}/${handler.file}.handler.spec.ts`] = handlerSpecTs(plan, handler);
  }
  return files;
}

const projectJson = (plan: ServicePlan): string =>
  JSON.stringify(
    {
      name: plan.app,
      $schema: '../../node_modules/nx/schemas/project-schema.json',
      sourceRoot: `apps/${plan.app}/src`,
      projectType: 'application',
      tags: ['type:app', `scope:${plan.name}`],
      implicitDependencies: [],
      targets: {
        serve: {
          command: `node dist/apps/${plan.app}/src/main.js`,
          options: { cwd: '{workspaceRoot}' },
          dependsOn: [],
        },
        test: { command: `vitest run apps/${plan.app}`, options: { cwd: '{workspaceRoot}' } },
      },
    },
    null,
    2,
  ) + '\n';

const mainTs = (plan: ServicePlan): string => `import './telemetry';
import { runService } from '@pipeline/service-kit';
import { AppModule } from './app.module';
import { ${plan.name}ConfigSchema } from './config';

void runService({
  service: '${plan.name}',
  configSchema: ${plan.name}ConfigSchema,
  appModule: (config) => AppModule.forConfig(config),
});
`;

const telemetryTs = (plan: ServicePlan): string => `import { startTelemetry } from '@pipeline/observability';

// Its own module, imported first by main.ts: the SDK must patch http and pg before they load.
startTelemetry({ service: '${plan.app}' });
`;

const configTs = (plan: ServicePlan): string => `import type { z } from 'zod';
import { baseConfigSchema } from '@pipeline/service-kit';

// Add this service's own variables with .extend({ ... }): validated once, at start-up.
export const ${plan.name}ConfigSchema = baseConfigSchema({ port: ${plan.port} });

export type ${plan.pascal}Config = z.output<typeof ${plan.name}ConfigSchema>;
`;

const appModuleTs = (
  plan: ServicePlan,
): string => `import { type DynamicModule, Module } from '@nestjs/common';
import { Topics } from '@pipeline/contracts';
import { ServiceCoreModule } from '@pipeline/service-kit';
import type { ${plan.pascal}Config } from './config';
import { PrismaClient } from './generated/prisma/client';
import { ${plan.useCasePascal}Module } from './${plan.useCase}/${plan.useCase}.module';

@Module({})
export class AppModule {
  static forConfig(config: ${plan.pascal}Config): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceCoreModule.forRoot({
          service: '${plan.name}',
          config,
          prismaClient: PrismaClient,
          consumes: [${plan.consumedTopicKeys.map((key) => `Topics.${key}`).join(', ')}],
        }),
        ${plan.useCasePascal}Module,
      ],
    };
  }
}
`;

function useCaseModuleTs(plan: ServicePlan): string {
  const imports = plan.consumed
    .map((h) => `import { ${h.className} } from './${h.file}.handler';`)
    .join('\n');
  return `import { Module } from '@nestjs/common';
${imports}

// Event handlers are controllers in Nest: @EventBatchPattern routes are registered from them.
@Module({ controllers: [${plan.consumed.map((h) => h.className).join(', ')}] })
export class ${plan.useCasePascal}Module {}
`;
}

function handlerTs(plan: ServicePlan, handler: ConsumedHandler): string {
  const { event } = handler;
  const key = event.hasOrderId ? 'event.payload.orderId' : "event.position.key ?? ''";
  const produced = plan.produced.map((p) => `${p.pascal}Event`);
  const contractImports = [event.descriptor, ...produced, ...(produced.length ? ['Topics'] : [])]
    .sort()
    .concat(`type ${event.payloadType}`);
  const publish = plan.produced
    .map(
      (p) => `      batch.publish(event, {
        topic: Topics.${p.topicKey},
        key: ${key},
        type: ${p.pascal}Event.type,
        payload: { orderId: ${key}, ${p.timeField}: new Date().toISOString() },
      });`,
    )
    .join('\n');
  const consequence = plan.produced.length
    ? `one ${plan.produced.map((p) => `\`${p.type}\``).join(' and one ')} per \`${event.type}\``
    : `\`${event.type}\` events`;
  return `import { Controller, Logger } from '@nestjs/common';
import { Ctx, Payload } from '@nestjs/microservices';
import { ${contractImports.join(', ')} } from '@pipeline/contracts';
import { EventBatchPattern, type ConsumedEvent, type EventBatch } from '@pipeline/messaging';

/**
 * The generated example: ${consequence}.
 * The consumer runs it in one transaction per batch with the inbox rows (a redelivered record is
 * skipped) and the outbox rows it publishes; a record that violates its contract never reaches
 * it: it goes to ${plan.name}.dead-letter.
 */
@Controller()
export class ${handler.className} {
  private readonly logger = new Logger(${handler.className}.name);

  @EventBatchPattern(${event.descriptor}.type)
  handle(
    @Payload() events: readonly ConsumedEvent<${event.payloadType}>[],
    @Ctx() batch: EventBatch,
  ): Promise<void> {
    for (const event of events) {
${publish || `      this.logger.log(\`\${event.metadata.type} \${event.metadata.id}\`);`}
    }
    ${plan.produced.length ? `this.logger.log(\`\${events.length} ${event.type} handled\`);\n    ` : ''}return Promise.resolve();
  }
}
`;
}

function handlerSpecTs(plan: ServicePlan, handler: ConsumedHandler): string {
  const { event } = handler;
  const expected = plan.produced.length
    ? `    expect(scope.outbox.map((row) => row.event.type)).toEqual([${plan.produced.map((p) => `'${p.type}'`).join(', ')}]);
    for (const row of scope.outbox) {
      expect(parseEvent(row.event.type, row.event.payload)).toMatchObject({ ok: true });
      expect(row.metadata.causationId).toBe(event.metadata.id);
    }`
    : '    expect(scope.outbox).toEqual([]);';
  return `import { randomUUID } from 'node:crypto';
import { ${plan.produced.length ? 'parseEvent, ' : ''}type ${event.payloadType} } from '@pipeline/contracts';
import type { Sql } from '@pipeline/database';
import { EventBatch, TransactionScope, type ConsumedEvent } from '@pipeline/messaging';
import { describe, expect, it } from 'vitest';
import { ${handler.className} } from './${handler.file}.handler';

// A made-up ${event.type}: only the fields this handler reads need to be right.
const anEvent = (orderId: string): ConsumedEvent<${event.payloadType}> => ({
  payload: { orderId } as unknown as ${event.payloadType},
  metadata: {
    id: randomUUID(),
    type: '${event.type}',
    source: 'test',
    time: new Date().toISOString(),
    correlationId: orderId,
  },
  position: { topic: 'test', partition: 0, offset: '0', key: orderId },
  attempt: 1,
});

describe('${handler.className}', () => {
  it('publishes what one ${event.type} causes, valid against its contract', async () => {
    const scope = new TransactionScope({} as Sql, '${plan.app}', () => ({}));
    const event = anEvent(randomUUID());
    await new ${handler.className}().handle([event], new EventBatch(scope));
${expected}
  });
});
`;
}

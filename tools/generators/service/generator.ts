// `npx nx g @pipeline/tools:service <name> --consumes <event> [--produces <event>]`: adds a
// service in the shape of the five, wired into everything that lists the services.
import { execSync } from 'node:child_process';
import { formatFiles, logger, type GeneratorCallback, type Tree } from '@nx/devkit';
import { appFiles } from './app-files.js';
import { addContracts } from './contract-files.js';
import { planService, type ServiceGeneratorSchema, type ServicePlan } from './plan.js';
import { addPrismaSchema } from './prisma-files.js';
import { wireService } from './wiring.js';

export type { ServiceGeneratorSchema } from './plan.js';

/** What the generated files need before they build and run: clients, dist/, derived documents. */
export const FOLLOW_UP_COMMANDS = (plan: ServicePlan): string[] => [
  `bash scripts/prisma-generate.sh ${plan.name}`,
  'bash scripts/build.sh',
  'npm run --silent asyncapi',
  'npm run --silent contracts:snapshot',
  'npm run --silent k8s:generate',
];

export async function serviceGenerator(
  tree: Tree,
  options: ServiceGeneratorSchema,
): Promise<GeneratorCallback> {
  const plan = planService(tree, options);
  for (const [path, content] of Object.entries(appFiles(plan))) tree.write(path, content);
  addPrismaSchema(tree, plan);
  addContracts(tree, plan);
  wireService(tree, plan);
  await formatFiles(tree);
  return () => {
    for (const command of FOLLOW_UP_COMMANDS(plan)) {
      logger.info(`> ${command}`);
      execSync(command, { cwd: tree.root, stdio: 'inherit' });
    }
    logger.info(nextSteps(plan));
  };
}

export const nextSteps = (plan: ServicePlan): string => `
${plan.app} is ready on port ${plan.port}: consumes ${plan.consumed.map((h) => h.event.type).join(', ')}, produces ${plan.produced.map((p) => p.type).join(', ') || 'nothing'}.
  Handlers:  apps/${plan.app}/src/${plan.useCase}/ (one per consumed event, with its test)
  Contracts: ${plan.produced.map((p) => `libs/contracts/src/events/${p.file}.event.ts`).join(', ') || '-'}
  Database:  prisma/${plan.name}/ (outbox and inbox from prisma/shared; your tables in schema.prisma)
Next:
  npx vitest run apps/${plan.app}
  npm run db:setup && npm run stack        (or: npm run stack -- --instances ${plan.name}=2)
`;

export default serviceGenerator;

import type { Admin } from 'kafkajs';
import { ServiceNames } from '@pipeline/contracts';
import { parseBenchArgs } from '../bench/bench-args';
import { findSustainableRate, type PipelineMeasurements } from '../bench/pipeline-run';
import { CpuMeter, pidListeningOn } from '../bench/proc-stats';
import type { StepContext } from '../bench/step-run';
import { localStackOptions, stackProcesses } from './local-stack';
import { chooseRate, type RateChoice } from './rate-choice';

/**
 * The bench's warm-up and ramp (tools/bench: its steps, its verdict per step, its loadgen runs),
 * against the running local stack instead of a stack of its own; then half of what it kept up with.
 * Each step's load report goes to outDir, as the bench's do.
 */
export async function findSoakRate(options: {
  readonly repoRoot: string;
  readonly outDir: string;
  readonly kafkaBrokers: readonly string[];
  readonly admin: Admin;
  readonly rampArgs: readonly string[];
}): Promise<RateChoice> {
  const config = parseBenchArgs(options.rampArgs);
  if (config === 'help') throw new Error('no help here');
  const stack = localStackOptions(options.repoRoot, options.outDir, options.kafkaBrokers.join(','));
  const kafkaPid = pidListeningOn(Number(options.kafkaBrokers[0]?.split(':')[1] ?? 9092));
  const pidsOf = (service: string) => (): number[] =>
    stackProcesses(options.repoRoot)
      .filter((p) => p.service === service)
      .map((p) => p.pid);
  // The groups the bench's warm-up and CPU per order read: each service, and the broker.
  const meter = new CpuMeter([
    ...ServiceNames.map((s) => ({ name: `${s}-service`, pids: pidsOf(s) })),
    { name: 'kafka', pids: () => (kafkaPid ? [kafkaPid] : []) },
  ]);
  const results: PipelineMeasurements = { steps: [], maxRssMiB: {}, rssAtReadyMiB: {} };
  const context: StepContext = {
    config,
    options: stack,
    outDir: options.outDir,
    admin: options.admin,
    meter,
    steps: results.steps,
    onLoadgenStarted: () => undefined,
  };
  const ramp = await findSustainableRate(context, results, kafkaPid !== undefined);
  return chooseRate(ramp, results.steps, config.floorRate);
}

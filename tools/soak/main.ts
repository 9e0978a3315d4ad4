/**
 * `npm run soak`: steady load at half the sustainable rate on the local stack for 30 minutes or
 * more, sampled over time and judged (soak-verdict.ts). scripts/soak.sh starts the stack when it
 * is not running; this needs it running: `node dist/tools/soak/main.js --help`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { registerCompressionCodecs } from '@pipeline/kafka-codecs';
import { resolve } from 'node:path';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { renderHtmlReport, renderSummary, runLoad, type LoadReport } from '@pipeline/load';
import { repoRoot } from '../bench/bench-environment';
import { parseConfig, type LoadgenConfig } from '../loadgen/args';
import { runMain } from '../run-main';
import { findSoakRate } from './find-rate';
import { stackProcesses } from './local-stack';
import { givenRate, NoSustainableRate, type RateChoice } from './rate-choice';
import { parseSoakArgs, SOAK_USAGE, UsageError, type SoakConfig } from './soak-args';
import { renderSampleLine, renderSoakHtml, type SoakResult } from './soak-report';
import { SoakSampler } from './soak-sampler';
import {
  clock,
  formatSoakVerdict,
  judgeSoak,
  lagBoundText,
  renderChecks,
  type SoakPolicy,
} from './soak-verdict';

const say = (line: string): void => void process.stderr.write(`[soak] ${line}\n`);

/** The load engine's configuration, from the load generator's own defaults. */
function loadConfig(config: SoakConfig, rate: number): LoadgenConfig {
  const parsed = parseConfig([
    ...['--rate', String(rate), '--duration', String(Math.round(config.minutes * 60))],
    ...['--lag-interval', String(config.sampleSeconds), '--drain-seconds', '60'],
  ]);
  if (parsed === 'help') throw new Error('unreachable');
  return parsed;
}

async function soakRate(config: SoakConfig, outDir: string, kafkaBrokers: string[], admin: Admin) {
  if (config.rate !== undefined) return givenRate(config.rate);
  say(`no --rate: finding the sustainable rate with the bench's warm-up and ramp (tools/bench)`);
  return findSoakRate({ repoRoot, outDir, kafkaBrokers, admin, rampArgs: config.rampArgs });
}

async function soak(config: SoakConfig, outDir: string): Promise<number> {
  const processes = stackProcesses(repoRoot);
  if (!processes.some((p) => p.service !== 'console')) {
    say('the local stack is not running: start it (npm run stack), or run npm run soak, which starts it');
    return 1;
  }
  say(`stack: ${processes.map((p) => `${p.name} (pid ${p.pid})`).join(', ')}; reports: ${outDir}`);
  await mkdir(outDir, { recursive: true });
  const brokers = [...loadConfig(config, 1).kafkaBrokers];
  registerCompressionCodecs();
  const kafka = new Kafka({ brokers, clientId: 'soak', logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    let rate: RateChoice;
    try {
      rate = await soakRate(config, outDir, brokers, admin);
    } catch (error) {
      if (!(error instanceof NoSustainableRate)) throw error;
      say(error.message);
      return 1;
    }
    say(`rate: ${rate.rate} orders/s: ${rate.why}`);
    return await run(config, outDir, rate, admin);
  } finally {
    await admin.disconnect();
  }
}

async function run(config: SoakConfig, outDir: string, rate: RateChoice, admin: Admin): Promise<number> {
  const load = loadConfig(config, rate.rate);
  const totalSeconds = Math.round(config.minutes * 60);
  const policy: SoakPolicy = {
    warmupSeconds: config.warmupMinutes * 60,
    windowSeconds: config.windowMinutes * 60,
    maxRssGrowth: 0.1,
    ...(config.lagBound === undefined ? {} : { lagBound: config.lagBound }),
  };
  if (config.minutes < 30) say(`${config.minutes} minutes: a check of the tool, not a soak (>= 30 minutes)`);
  say(
    `judging RSS from ${clock(policy.warmupSeconds)} (median windows of up to ${clock(policy.windowSeconds)}), each group's lag against ${lagBoundText(policy)}`,
  );
  const groups = Object.fromEntries(
    Object.entries(load.groups).map(([g, topics]) => [g, topics.map((t) => load.topicPrefix + t)]),
  );
  const sampler = new SoakSampler({
    repoRoot,
    admin,
    groups,
    intervalSeconds: config.sampleSeconds,
    onSample: (sample) => process.stderr.write(`${renderSampleLine(sample, totalSeconds)}\n`),
  });
  const stop = new AbortController();
  // npm forwards a terminal's Ctrl-C as well: the second one must not kill the report's writing.
  const onSignal = (): void => {
    if (stop.signal.aborted) return;
    say('stopping: no more orders, no drain; the report says STOPPED');
    stop.abort();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  const startedAt = new Date().toISOString();
  let report: LoadReport;
  try {
    report = await runLoad(load, {
      signal: stop.signal,
      groupPrefix: 'soak-',
      onProgress: (state) => sampler.progress(state),
      log: say,
      kafkaLog: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    await sampler.flush();
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  const verdict = judgeSoak(sampler.samples, report, policy);
  const result: SoakResult = {
    startedAt,
    minutes: config.minutes,
    sampleSeconds: config.sampleSeconds,
    rate,
    policy,
    verdict,
    samples: sampler.samples,
    load: renderSummary(report),
  };
  await writeFile(`${outDir}/soak.json`, `${JSON.stringify(result, null, 2)}\n`);
  await writeFile(`${outDir}/soak.html`, renderSoakHtml(result));
  await writeFile(`${outDir}/load.json`, `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(`${outDir}/load.html`, renderHtmlReport(report));
  const lines = renderChecks(verdict).map((line) => `  ${line}`);
  process.stdout.write(
    `${[...renderSummary(report), ...lines, `  report: ${outDir}/soak.html, soak.json, load.html`, formatSoakVerdict(verdict)].join('\n')}\n`,
  );
  return verdict.result === 'PASS' ? 0 : verdict.result === 'STOPPED' ? 130 : 1;
}

async function main(argv: string[]): Promise<number> {
  let config: SoakConfig | 'help';
  try {
    config = parseSoakArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`soak: ${error.message}\n\n${SOAK_USAGE}\n`);
    return 2;
  }
  if (config === 'help') {
    process.stdout.write(`${SOAK_USAGE}\n`);
    return 0;
  }
  if (config.checkOnly) return 0;
  return soak(config, resolve(repoRoot, config.outDir));
}

runMain('soak', () => main(process.argv.slice(2)));

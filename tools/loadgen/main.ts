/**
 * Drives POST /orders at an offered rate and measures the pipeline end to end:
 * `node dist/tools/loadgen/main.js --help` (npm run loadgen -- --help). The run itself is
 * @pipeline/load's runLoad, the one the console's Load page runs too; this is its command line.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { renderHtmlReport, renderSummary, runLoad, type LoadReport } from '@pipeline/load';
import { parseConfig, UsageError, type LoadgenConfig } from './args';
import { ProgressLine } from './progress';
import { USAGE } from './usage';
import { runMain } from '../run-main';

async function writeReports(report: LoadReport, out: string): Promise<string> {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  const html = out.replace(/\.json$/, '') + '.html';
  await writeFile(html, renderHtmlReport(report));
  return html;
}

async function main(argv: string[]): Promise<number> {
  let config: LoadgenConfig | 'help';
  try {
    config = parseConfig(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`loadgen: ${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (config === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const progress = new ProgressLine();
  let report: LoadReport;
  try {
    report = await runLoad(config, {
      onProgress: (state) => progress.write(state),
      log: (line) => {
        progress.stop();
        process.stderr.write(`${line}\n`);
      },
      kafkaLog: (line) => process.stderr.write(`${line}\n`),
    });
  } finally {
    progress.stop();
  }
  const html = await writeReports(report, config.out);
  process.stdout.write(`${[...renderSummary(report), `  report: ${config.out}, ${html}`].join('\n')}\n`);
  return 0;
}

runMain('loadgen', () => main(process.argv.slice(2)));

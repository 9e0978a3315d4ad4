import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseInstances, parseStackArgs, UsageError } from './stack-args';

const one = { order: 1, payment: 1, inventory: 1, email: 1, analytics: 1 };

describe('parseStackArgs', () => {
  it('starts one instance of each service and the console by default', () => {
    expect(parseStackArgs([])).toMatchObject({ instances: one, console: true, help: false });
  });

  it('takes --instances as a list, repeated, with or without the -service suffix', () => {
    expect(
      parseStackArgs(['--instances', 'payment=2,order=1', '--instances=inventory-service=4']).instances,
    ).toMatchObject({ ...one, payment: 2, inventory: 4 });
    expect(parseStackArgs(['--no-console']).console).toBe(false);
    expect(parseStackArgs(['-h']).help).toBe(true);
  });

  it.each([
    [
      ['--instances', 'paymnt=2'],
      /unknown service "paymnt" \(one of order, payment, inventory, email, analytics[,)]/,
    ],
    [['--instances', 'payment=5'], /payment=5: the count must be a whole number from 1 to 4/],
    [['--instances', 'payment=0'], /from 1 to 4/],
    [['--instances', 'payment=1.5'], /from 1 to 4/],
    [['--instances', 'payment'], /"payment": expected <service>=<count>, e.g. payment=2/],
    [['--instances', 'payment=2', '--instances', 'payment=3'], /payment is given twice/],
    [['--instances', 'console=2'], /the console runs once/],
    [['--instance', 'payment=2'], /Unknown option '--instance'/],
    [['--instances'], /argument missing/],
    [['payment=2'], /Unexpected argument 'payment=2'/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseStackArgs(argv)).toThrow(UsageError);
    expect(() => parseStackArgs(argv)).toThrow(message);
  });

  it('parses values without spaces trouble', () => {
    expect(parseInstances([' payment = 2 ,email=3'])).toMatchObject({ ...one, payment: 2, email: 3 });
  });
});

describe('node dist/tools/stack/main.js', () => {
  const cli = resolve(__dirname, '../../dist/tools/stack/main.js');

  it('exits 2 on a bad --instances, with the reason and the usage, and starts nothing', () => {
    expect(existsSync(cli), `${cli}: run bash scripts/build.sh`).toBe(true);
    const run = spawnSync(process.execPath, [cli, '--instances', 'payment=9'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      'stack: --instances payment=9: the count must be a whole number from 1 to 4',
    );
    expect(run.stderr).toContain('Usage: npm run stack --');
    expect(run.stdout).toBe('');
  });
});

/**
 * The counting SMTP sink as its own process, so the bench measures its CPU apart from everything
 * else: `node dist/tools/bench/mail-sink/smtp-sink-main.js --port 3105`. Over IPC, the message
 * 'counts' is answered with the counts so far; SIGTERM closes it.
 */
import { parseArgs } from 'node:util';
import { CountingSmtpSink } from './counting-smtp-sink';
import { runMain } from '../../run-main';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { port: { type: 'string' }, host: { type: 'string' } },
  });
  const sink = new CountingSmtpSink();
  const port = await sink.listen(Number(values.port ?? 2525), values.host ?? '127.0.0.1');
  process.stderr.write(`smtp-sink: listening on ${values.host ?? '127.0.0.1'}:${port}\n`);
  process.on('message', (message) => {
    if (message === 'counts') process.send?.({ counts: sink.counts() });
  });
  process.send?.({ listening: port });
  await new Promise<void>((resolve) => process.once('SIGTERM', resolve));
  await sink.close();
  process.stderr.write(`smtp-sink: closed after ${JSON.stringify(sink.counts())}\n`);
  process.disconnect?.();
  return 0;
}

runMain('smtp-sink', () => main(process.argv.slice(2)));

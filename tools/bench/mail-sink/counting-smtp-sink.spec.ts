import { createTransport } from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { CountingSmtpSink } from './counting-smtp-sink';

describe('CountingSmtpSink', () => {
  let sink: CountingSmtpSink | undefined;
  afterEach(async () => {
    await sink?.close();
  });

  it('accepts mail over a real SMTP connection (a nodemailer pool) and counts it', async () => {
    sink = new CountingSmtpSink();
    const port = await sink.listen(0);
    const transport = createTransport({
      pool: true,
      host: '127.0.0.1',
      port,
      secure: false,
      maxConnections: 2,
    });
    try {
      const sent = await Promise.all([
        transport.sendMail({ from: 'a@pipeline.local', to: 'x@loadgen.test', subject: 's', text: 'one' }),
        transport.sendMail({
          from: 'a@pipeline.local',
          to: 'y@loadgen.test',
          subject: 's',
          html: '<p>two</p>',
        }),
        transport.sendMail({
          from: 'a@pipeline.local',
          to: ['z@loadgen.test', 'w@loadgen.test'],
          subject: 's',
          text: 'three',
        }),
      ]);
      expect(sent.map((info) => info.rejected)).toEqual([[], [], []]);
      expect(sent.every((info) => info.response.startsWith('250'))).toBe(true);
    } finally {
      transport.close();
    }
    const counts = sink.counts();
    expect(counts.messages).toBe(3);
    expect(counts.recipients).toBe(4);
    // Headers and bodies arrived: each message is a few hundred bytes.
    expect(counts.bytes).toBeGreaterThan(3 * 200);
  });

  it('refuses a port that is taken', async () => {
    sink = new CountingSmtpSink();
    const port = await sink.listen(0);
    const second = new CountingSmtpSink();
    await expect(second.listen(port)).rejects.toThrow(/EADDRINUSE/);
  });
});

import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SinkCounts {
  readonly messages: number;
  readonly recipients: number;
  readonly bytes: number;
}

/**
 * An SMTP server that accepts every message, counts it and throws it away. The bench's mail sink:
 * maildev keeps each message in memory and on disk and parses it for its UI, which at hundreds
 * of emails/s costs more CPU than the email service that sends them (BENCHMARKS.md).
 */
export class CountingSmtpSink {
  private messages = 0;
  private recipients = 0;
  private bytes = 0;
  private readonly server = new SMTPServer({
    // Plain SMTP like the local maildev: no TLS handshake to pay for per connection.
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    allowInsecureAuth: true,
    disableReverseLookup: true,
    logger: false,
    closeTimeout: 1_000,
    onAuth: (_auth, _session, callback) => callback(null, { user: 'bench' }),
    onData: (stream, session, callback) => {
      stream.on('end', () => {
        this.messages++;
        this.recipients += session.envelope.rcptTo.length;
        this.bytes += stream.byteLength;
        callback();
      });
      stream.resume();
    },
  });

  /** Resolves with the port it listens on (0 picks a free one). */
  listen(port: number, host = '127.0.0.1'): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      const listening = this.server.listen(port, host, () => {
        this.server.off('error', reject);
        resolve((listening.address() as AddressInfo).port);
      });
    });
  }

  counts(): SinkCounts {
    return { messages: this.messages, recipients: this.recipients, bytes: this.bytes };
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

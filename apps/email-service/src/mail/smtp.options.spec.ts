import { createServer, Socket, type AddressInfo } from 'node:net';
import { createTransport } from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { classifyError } from '@pipeline/messaging';
import { smtpFailure } from './smtp-failure';
import { SMTP_POOL_CONNECTIONS, smtpPoolOptions } from './smtp.options';

/** A real SMTP server on a free loopback port that keeps the Message-ID of what it accepts. */
async function smtpServer(port = 0): Promise<{ port: number; accepted: string[]; close(): Promise<void> }> {
  const accepted: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    closeTimeout: 100, // then it ends the pool's idle connections itself
    logger: false,
    onData(stream, _session, callback) {
      let text = '';
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.on('end', () => {
        accepted.push(/^Message-ID: (.+)$/im.exec(text)?.[1]?.trim() ?? '');
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.server.address() as AddressInfo;
  return {
    port: address.port,
    accepted,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const email = (n: number) => ({
  from: 'shop@pipeline.local',
  to: `customer${n}@example.test`,
  subject: `order ${n}`,
  text: 'Thank you for your order.',
  messageId: `<${n}@order-pipeline.local>`,
});

afterEach(() => vi.restoreAllMocks());

describe('smtpPoolOptions', () => {
  it('pools connections to the host and port of SMTP_URL', () => {
    expect(smtpPoolOptions('smtp://127.0.0.1:1025')).toMatchObject({
      pool: true,
      host: '127.0.0.1',
      port: 1025,
      secure: false,
      maxConnections: SMTP_POOL_CONNECTIONS,
    });
  });

  it('uses implicit TLS and credentials when the URL says so, over a socket nodemailer connects', () => {
    const options = smtpPoolOptions('smtps://user%40x:p%3Ass@mail.example.test');
    expect(options).toMatchObject({ secure: true, port: 465, auth: { user: 'user@x', pass: 'p:ss' } });
    expect('getSocket' in options).toBe(false);
  });

  it('delivers over pooled sockets that have Nagle off', async () => {
    const server = await smtpServer();
    const noDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
    const transport = createTransport(smtpPoolOptions(`smtp://127.0.0.1:${server.port}`));
    try {
      await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => transport.sendMail(email(n))));
      expect(server.accepted.sort()).toEqual([1, 2, 3, 4, 5, 6, 7].map((n) => `<${n}@order-pipeline.local>`));
      // The client's sockets (the server's own are not this code's): one per pooled connection.
      const clientCalls = noDelay.mock.calls.filter(
        (_, call) => (noDelay.mock.contexts[call] as Socket).remotePort === server.port,
      );
      expect(clientCalls.length).toBeGreaterThanOrEqual(1);
      expect(clientCalls.length).toBeLessThanOrEqual(SMTP_POOL_CONNECTIONS);
      expect(clientCalls.every(([enable]) => enable === true)).toBe(true);
    } finally {
      transport.close();
      await server.close();
    }
  });

  it('fails a send to a server that refuses the connection as a retriable outage', async () => {
    const transport = createTransport(smtpPoolOptions(`smtp://127.0.0.1:${await closedPort()}`));
    try {
      const error: unknown = await transport.sendMail(email(1)).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect((error as Error).message).toContain('ECONNREFUSED');
      expect(classifyError(smtpFailure(error))).toBe('retriable');
    } finally {
      transport.close();
    }
  });

  it('fails every send while the server is down and delivers again once it is back', async () => {
    const before = await smtpServer();
    const { port } = before;
    const transport = createTransport(smtpPoolOptions(`smtp://127.0.0.1:${port}`));
    const batch = (from: number) => [0, 1, 2, 3, 4, 5, 6].map((n) => email(from + n));
    try {
      await Promise.all(batch(0).map((message) => transport.sendMail(message)));
      await before.close();
      // More failures than pooled connections: none may leave a connection slot behind.
      for (let round = 0; round < 3; round += 1) {
        const outcomes = await Promise.allSettled(batch(100 + 10 * round).map((m) => transport.sendMail(m)));
        expect(outcomes.map((outcome) => outcome.status)).toEqual(Array(7).fill('rejected'));
      }
      const after = await smtpServer(port);
      try {
        await Promise.all(batch(200).map((message) => transport.sendMail(message)));
        expect(after.accepted).toHaveLength(7);
      } finally {
        await after.close();
      }
    } finally {
      transport.close();
    }
  }, 30_000);
});

import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStreams, type EventStream } from './event-streams';

const MAX_BUFFERED = 64 * 1024;

// A real server and real sockets: the backpressure is the kernel's and Node's, not a fake's.
describe('EventStreams', () => {
  let app: FastifyInstance;
  const sockets: Socket[] = [];
  afterEach(async () => {
    sockets.forEach((socket) => socket.destroy());
    await app.close();
  });

  async function serve(max: number) {
    const streams = new EventStreams('test', { max, variable: 'TEST_MAX', maxBufferedBytes: MAX_BUFFERED });
    const open: EventStream[] = [];
    let unsubscribed = 0;
    app = Fastify({ forceCloseConnections: true });
    app.get('/stream', (request, reply) =>
      streams.accept(request, reply, (stream) => {
        open.push(stream);
        return () => (unsubscribed += 1);
      }),
    );
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    /** A client that sends its request, then reads only if `reading`. */
    const client = (reading: boolean) =>
      new Promise<{ socket: Socket; received: () => string }>((resolve) => {
        let text = '';
        const socket = connect(port, '127.0.0.1', () => {
          socket.write('GET /stream HTTP/1.1\r\nhost: test\r\n\r\n');
        });
        sockets.push(socket);
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => {
          text += chunk;
          if (!reading) socket.pause();
          if (text.includes('retry: 2000')) resolve({ socket, received: () => text });
        });
        socket.on('error', () => undefined);
      });
    return { streams, open, client, unsubscribed: () => unsubscribed };
  }

  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('closes the stream of a client that stops reading, instead of buffering for it', async () => {
    const { streams, open, client, unsubscribed } = await serve(2);
    await client(false);
    const event = 'x'.repeat(16 * 1024);
    let sent = 0;
    // 64 MiB would be buffered without the bound; the socket fills well before that.
    while (streams.dropped === 0 && sent < 4096) {
      open[0]!.send('big', event);
      sent += 1;
      await tick();
    }
    expect(streams.dropped).toBe(1);
    while (streams.size > 0) await tick();
    expect(unsubscribed()).toBe(1);
  });

  it('keeps a client that reads, and delivers every event to it', async () => {
    const { streams, open, client } = await serve(2);
    const { received } = await client(true);
    for (let n = 0; n < 200; n++) {
      open[0]!.send('small', JSON.stringify({ n, padding: 'y'.repeat(1_000) }));
      await tick();
    }
    await new Promise<void>((resolve) => {
      const check = () => (received().includes('"n":199') ? resolve() : setTimeout(check, 10));
      check();
    });
    expect(streams.dropped).toBe(0);
    expect(received().match(/event: small/g)).toHaveLength(200);
  });

  it('answers 503 with the variable beyond the cap, and takes a stream again once one closed', async () => {
    const { streams, client } = await serve(1);
    const first = await client(true);
    const refused = await app.inject({ method: 'GET', url: '/stream' });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.json()).toEqual({
      error: 'too many test streams',
      reason: 'at most 1 (TEST_MAX) at once',
    });
    first.socket.destroy();
    while (streams.size > 0) await tick();
    await client(true);
    expect(streams.size).toBe(1);
  });
});

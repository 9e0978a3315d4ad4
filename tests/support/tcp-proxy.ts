// A TCP proxy on 127.0.0.1 in front of one upstream (Postgres), for the faults a closed port cannot
// show: `blackhole()` keeps every socket open and forwards nothing, in either direction, as a
// dropped network path or a frozen server does. A client sees no error, only silence.
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Stops forwarding: bytes already sent and new connections go nowhere, nothing is closed. */
  blackhole(): void;
  /** Forwards again (new connections; the blackholed ones stay silent). */
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(upstreamHost: string, upstreamPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const silenced = new WeakSet<Socket>();
  let blackholed = false;
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (blackholed) {
      silenced.add(client);
      client.on('data', () => undefined);
      return;
    }
    const upstream = connect(upstreamPort, upstreamHost);
    track(upstream);
    const forward = (from: Socket, to: Socket): void => {
      from.on('data', (chunk) => {
        if (!silenced.has(client)) to.write(chunk);
      });
      from.on('close', () => {
        if (!silenced.has(client)) to.destroy();
      });
    };
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    blackhole: () => {
      blackholed = true;
      for (const socket of sockets) silenced.add(socket);
    },
    restore: () => {
      blackholed = false;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

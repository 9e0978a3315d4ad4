import { once } from 'node:events';
import { createServer } from 'node:net';

/** Whether every port can be bound on 127.0.0.1 right now. */
export async function portsFree(ports: readonly number[]): Promise<boolean> {
  for (const port of ports) {
    const server = createServer();
    server.listen(port, '127.0.0.1');
    const outcome = await Promise.race([
      once(server, 'listening').then(() => true),
      once(server, 'error').then(() => false),
    ]);
    if (outcome) await new Promise<void>((resolve) => server.close(() => resolve()));
    if (!outcome) return false;
  }
  return true;
}

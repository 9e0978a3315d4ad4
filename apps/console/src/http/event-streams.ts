import type { FastifyReply, FastifyRequest } from 'fastify';

const HEARTBEAT_MS = 15_000;

export interface EventStream {
  /** One server-sent event; `data` is one line (JSON). */
  send(event: string, data: string): void;
}

export interface StreamLimits {
  /** Streams open at once; one more answers 503. */
  readonly max: number;
  /** The variable that sets `max`, named in the refusal. */
  readonly variable: string;
  /** A stream with more than this still unsent to its client is closed instead of written to. */
  readonly maxBufferedBytes: number;
}

/**
 * One kind of server-sent stream, bounded twice: at most `max` open at once, and none holds more
 * than about `maxBufferedBytes` for a client that stops reading. Such a client first fills its
 * socket, then Node's buffer grows with every write; the stream is closed there, and the
 * browser's EventSource reconnects by itself.
 */
export class EventStreams {
  private open = 0;
  private closedSlow = 0;

  constructor(
    private readonly name: string,
    private readonly limits: StreamLimits,
  ) {}

  get size(): number {
    return this.open;
  }

  /** Streams closed because their client did not read. */
  get dropped(): number {
    return this.closedSlow;
  }

  /**
   * Opens a stream on `reply` and hands it to `subscribe`, whose returned function runs once when
   * the stream ends; beyond the cap answers 503 with the reason instead.
   */
  accept(request: FastifyRequest, reply: FastifyReply, subscribe: (stream: EventStream) => () => void): void {
    const { max, variable, maxBufferedBytes } = this.limits;
    if (this.open >= max) {
      void reply
        .code(503)
        .header('retry-after', '10')
        .send({ error: `too many ${this.name} streams`, reason: `at most ${max} (${variable}) at once` });
      return;
    }
    this.open += 1;
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    const write = (chunk: string) => {
      if (out.destroyed) return;
      if (out.writableLength > maxBufferedBytes) {
        this.closedSlow += 1;
        request.log.info(`${this.name} stream closed: its client left ${out.writableLength} bytes unread`);
        out.destroy();
        return;
      }
      out.write(chunk);
    };
    write('retry: 2000\n\n');
    const unsubscribe = subscribe({ send: (event, data) => write(`event: ${event}\ndata: ${data}\n\n`) });
    const heartbeat = setInterval(() => write(': keep-alive\n\n'), HEARTBEAT_MS);
    out.once('close', () => {
      this.open -= 1;
      clearInterval(heartbeat);
      unsubscribe();
    });
  }
}

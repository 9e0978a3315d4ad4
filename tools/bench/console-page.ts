/**
 * A live flow page left open in a browser, as the bench emulates it: one server-sent-events client
 * on the console's stream and the page's own polling. The console's cost under load is measured
 * with this page open, so it counts the work a watching user causes.
 */

/** The stream the live flow page keeps open (apps/console/src/pages/flow.page.ts). */
export const FlowPageStream = '/flow/stream';

/**
 * What an open live flow page fetches on its own, and how often (its `data-refresh-url` and
 * `data-refresh-ms`). Add a row when the page gains a poll, e.g. a chart's data endpoint.
 */
export const FlowPagePolls: readonly { readonly path: string; readonly everyMs: number }[] = [
  { path: '/flow/metrics', everyMs: 5_000 },
  { path: '/flow/diagram', everyMs: 5_000 },
  { path: '/flow/series', everyMs: 5_000 },
];

/** What the page received so far; read at a step's window edges. */
export interface PageTraffic {
  /** `event: orders` messages on the stream. */
  readonly streamEvents: number;
  readonly streamBytes: number;
  /** Poll answers by outcome. */
  readonly pollsOk: number;
  readonly pollsFailed: number;
}

export const trafficBetween = (from: PageTraffic, to: PageTraffic): PageTraffic => ({
  streamEvents: to.streamEvents - from.streamEvents,
  streamBytes: to.streamBytes - from.streamBytes,
  pollsOk: to.pollsOk - from.pollsOk,
  pollsFailed: to.pollsFailed - from.pollsFailed,
});

/** Counts `event: orders` lines across chunk boundaries (a line may be split between two). */
export class EventCounter {
  private tail = '';
  events = 0;

  feed(chunk: string): void {
    const lines = (this.tail + chunk).split('\n');
    this.tail = lines.pop() ?? '';
    for (const line of lines) if (line === 'event: orders') this.events += 1;
  }
}

export class OpenFlowPage {
  private readonly abort = new AbortController();
  private readonly counter = new EventCounter();
  /** The pending timer of each poll. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private streamBytes = 0;
  private pollsOk = 0;
  private pollsFailed = 0;
  private streaming: Promise<void> | undefined;

  constructor(private readonly baseUrl: string) {}

  /** Opens the stream (resolves once the console answered it) and starts the polls. */
  async open(): Promise<void> {
    const response = await fetch(`${this.baseUrl}${FlowPageStream}`, {
      headers: { accept: 'text/event-stream' },
      signal: this.abort.signal,
    });
    if (!response.ok || response.body === null)
      throw new Error(`${FlowPageStream} answered ${response.status}`);
    this.streaming = this.read(response.body);
    for (const { path, everyMs } of FlowPagePolls) this.poll(path, everyMs);
  }

  traffic(): PageTraffic {
    return {
      streamEvents: this.counter.events,
      streamBytes: this.streamBytes,
      pollsOk: this.pollsOk,
      pollsFailed: this.pollsFailed,
    };
  }

  async close(): Promise<void> {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.abort.abort();
    await this.streaming;
  }

  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        this.streamBytes += chunk.byteLength;
        this.counter.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // Aborted by close(), or the console went away: the traffic says how far it got.
    }
  }

  /** As the page's script does: the next poll is scheduled once the previous one answered. */
  private poll(path: string, everyMs: number): void {
    const tick = async () => {
      try {
        const response = await fetch(`${this.baseUrl}${path}`, {
          headers: { accept: 'text/html' },
          signal: this.abort.signal,
        });
        await response.arrayBuffer();
        if (response.ok) this.pollsOk += 1;
        else this.pollsFailed += 1;
      } catch {
        if (this.abort.signal.aborted) return;
        this.pollsFailed += 1;
      }
      this.timers.set(
        path,
        setTimeout(() => void tick(), everyMs),
      );
    };
    this.timers.set(
      path,
      setTimeout(() => void tick(), everyMs),
    );
  }
}

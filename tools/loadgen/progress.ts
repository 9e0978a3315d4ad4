import type { SecondPoint } from './timeline';

export interface ProgressState {
  readonly elapsedSeconds: number;
  readonly last: SecondPoint | undefined;
  readonly e2eP99: number;
  readonly inFlight: number;
  readonly outstanding: number;
  readonly lag: number | undefined;
}

export const renderProgress = (s: ProgressState): string =>
  [
    `t=${s.elapsedSeconds.toFixed(0)}s`,
    `offered ${s.last?.offered ?? 0}/s`,
    `placed ${s.last?.placed ?? 0}/s`,
    `terminal ${s.last?.terminal ?? 0}/s`,
    `e2e p99 ${s.e2eP99.toFixed(1)} ms`,
    `in flight ${s.inFlight}`,
    `awaiting terminal ${s.outstanding}`,
    `lag ${s.lag ?? '?'}`,
  ].join(' | ');

/** One updating line on a terminal, plain lines when stderr is a file or a pipe. */
export class ProgressLine {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly state: () => ProgressState,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.write(renderProgress(this.state())), 1000);
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.stream.isTTY) this.stream.write('\n');
  }

  private write(line: string): void {
    if (this.stream.isTTY) this.stream.write(`\r\x1b[2K${line}`);
    else this.stream.write(`${line}\n`);
  }
}

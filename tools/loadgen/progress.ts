import type { LoadProgress } from '@pipeline/load';

export const renderProgress = (s: LoadProgress): string =>
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
  private open = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  /** Each second of the run, as runLoad reports it. */
  write(state: LoadProgress): void {
    const line = renderProgress(state);
    if (!this.stream.isTTY) {
      this.stream.write(`${line}\n`);
      return;
    }
    this.stream.write(`\r\x1b[2K${line}`);
    this.open = true;
  }

  /** Ends the updating line, so that the next output starts on its own. */
  stop(): void {
    if (this.open) this.stream.write('\n');
    this.open = false;
  }
}

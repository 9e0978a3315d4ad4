import { runLoad, type LoadConfig, type LoadProgress, type LoadReport } from '@pipeline/load';
import { writeReportFiles, type ReportFiles } from './report-files';

export type LoadRunState =
  | {
      readonly status: 'running';
      readonly startedAt: string;
      readonly config: LoadConfig;
      /** Undefined until the run has joined `orders` and its first second has passed. */
      readonly progress: LoadProgress | undefined;
      readonly stopping: boolean;
    }
  | { readonly status: 'finished'; readonly report: LoadReport; readonly files: ReportFiles }
  | { readonly status: 'failed'; readonly startedAt: string; readonly error: string };

export interface LoadRunnerLog {
  info(message: string): void;
  error(message: string): void;
}

const conflict = (message: string) => Object.assign(new Error(message), { statusCode: 409 });

/**
 * Holds the console's one load run: at most one at a time, stopped at once by its abort signal,
 * and its last result (report and files) kept for the page.
 */
export class LoadRunner {
  private state: LoadRunState | undefined;
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly reportDir: string,
    private readonly log: LoadRunnerLog,
    /** A run's group on `orders` starts with it: the groups page lists it as the console's. */
    private readonly groupPrefix: string,
  ) {}

  /** The run now, or the last one's result. */
  private closed = false;

  get current(): LoadRunState | undefined {
    return this.state;
  }

  /** Starts a run in the background; refused (409) while one runs, and (503) once closed. */
  start(config: LoadConfig): LoadRunState {
    if (this.closed)
      throw Object.assign(new Error('the console is stopping: no new load run'), { statusCode: 503 });
    if (this.running !== undefined) {
      const since = this.state?.status === 'running' ? ` (started ${this.state.startedAt})` : '';
      throw conflict(`a load run is already running${since}: one at a time, stop it first`);
    }
    const controller = new AbortController();
    const startedAt = new Date().toISOString();
    this.controller = controller;
    this.state = { status: 'running', startedAt, config, progress: undefined, stopping: false };
    this.running = this.run(config, controller.signal, startedAt).finally(() => {
      this.running = undefined;
      this.controller = undefined;
    });
    return this.state;
  }

  /** Ends the running load at once and waits for its report; refused (409) when none runs. */
  async stop(): Promise<LoadRunState> {
    const running = this.running;
    if (running === undefined || this.controller === undefined)
      throw conflict('no load run is running: nothing to stop');
    if (this.state?.status === 'running') this.state = { ...this.state, stopping: true };
    this.controller.abort();
    await running;
    return this.state!;
  }

  /** For the console's shutdown: nothing keeps running after it. */
  async close(): Promise<void> {
    this.closed = true;
    this.controller?.abort();
    await this.running;
  }

  private async run(config: LoadConfig, signal: AbortSignal, startedAt: string): Promise<void> {
    try {
      const report = await runLoad(config, {
        signal,
        onProgress: (progress) => {
          if (this.state?.status === 'running') this.state = { ...this.state, progress };
        },
        log: (line) => this.log.info(line),
        kafkaLog: (line) => this.log.error(line),
        groupPrefix: this.groupPrefix,
      });
      const files = await writeReportFiles(this.reportDir, report);
      this.state = { status: 'finished', report, files };
      this.log.info(`load run finished: ${report.verdict.result}, report ${files.htmlPath}`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.state = { status: 'failed', startedAt, error: message };
      this.log.error(`load run failed: ${message}`);
    }
  }
}

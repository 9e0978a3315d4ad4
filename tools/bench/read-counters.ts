import { say } from './bench-log';
import {
  databaseCounters,
  databaseName,
  servicePort,
  Services,
  type DatabaseCounters,
  type StackOptions,
} from './stack-under-test';
import { parseServiceCounters, type CountersReading, type ServiceCounters } from './work-counts';

/** One reading of every counter the bench takes per step. */
export interface WorkReading {
  /** Per service: its /metrics counters and its database's commits. */
  readonly counters: CountersReading;
  /** Per database: pg_stat_database's commits and row changes. */
  readonly databases: Record<string, DatabaseCounters>;
}

async function scrape(service: string, port: number): Promise<ServiceCounters> {
  const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) });
  if (!response.ok) throw new Error(`${service}-service /metrics answered ${response.status}`);
  return parseServiceCounters(await response.text());
}

/**
 * Reads the five services' /metrics and the five databases' counters at once. Started during a
 * step and awaited after it: a failed read is "not measured" (said at once), never an unhandled
 * rejection that would end the bench with its services still running.
 */
export function readWork(options: StackOptions): Promise<WorkReading | undefined> {
  const read = async (): Promise<WorkReading> => {
    const [scraped, databases] = await Promise.all([
      Promise.all(Services.map((s) => scrape(s, servicePort(options, s)))),
      databaseCounters(
        options,
        Services.map((s) => databaseName(options, s)),
      ),
    ]);
    const services = Object.fromEntries(Services.map((s, i) => [s, scraped[i]!]));
    const commits = Object.fromEntries(
      Services.map((s) => [s, databases[databaseName(options, s)]?.commits ?? 0]),
    );
    return { counters: { services, commits }, databases };
  };
  return read().catch((error: unknown) => {
    say(`  counters not measured: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
}

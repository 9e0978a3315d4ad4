import { ServiceNames, type ServiceName } from '@pipeline/contracts';
import type { FlowSample } from './flow-sample';

type Column = (number | null)[];
type PerService = Record<ServiceName, Column>;

/** The charts' data, column by column as uPlot takes it: `t` in epoch seconds, then the series. */
export interface FlowSeries {
  readonly intervalMs: number;
  readonly points: number;
  readonly t: number[];
  readonly placedPerSecond: Column;
  readonly terminalPerSecond: Column;
  readonly e2eP50Ms: Column;
  readonly e2eP99Ms: Column;
  /** Group id of each service, for the legend of `lag`. */
  readonly groups: Record<ServiceName, string>;
  readonly lag: PerService;
  readonly eventsPerTransaction: PerService;
  readonly cpuPercent: PerService;
  readonly rssMiB: PerService;
}

const round = (value: number | null, digits = 2) =>
  value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits;

const perService = (
  samples: readonly FlowSample[],
  pick: (s: FlowSample, name: ServiceName) => number | null,
) =>
  Object.fromEntries(
    ServiceNames.map((name) => [name, samples.map((s) => round(pick(s, name)))]),
  ) as PerService;

export function toSeries(samples: readonly FlowSample[], intervalMs: number): FlowSeries {
  const last = samples.at(-1);
  return {
    intervalMs,
    points: samples.length,
    t: samples.map((s) => s.at / 1000),
    placedPerSecond: samples.map((s) => round(s.placedPerSecond)),
    terminalPerSecond: samples.map((s) => round(s.terminalPerSecond)),
    e2eP50Ms: samples.map((s) => round(s.e2eP50Ms, 0)),
    e2eP99Ms: samples.map((s) => round(s.e2eP99Ms, 0)),
    groups: Object.fromEntries(ServiceNames.map((name) => [name, last?.groups[name].group ?? ''])) as Record<
      ServiceName,
      string
    >,
    lag: perService(samples, (s, name) => s.groups[name].lag),
    eventsPerTransaction: perService(samples, (s, name) => s.services[name].eventsPerTransaction),
    cpuPercent: perService(samples, (s, name) => s.services[name].cpuPercent),
    rssMiB: perService(samples, (s, name) => {
      const bytes = s.services[name].rssBytes;
      return bytes === null ? null : bytes / 2 ** 20;
    }),
  };
}

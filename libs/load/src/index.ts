// A load test against the pipeline: which orders to place (the demo catalogue's outcome mix), how
// to place them, how far a consumer group lags, and the whole run with its report (runLoad).
// Shared by the load generator and the bench (tools/), the console's Load page and the fault suite.
export * from './lag-monitor';
export * from './load-config';
export * from './order-client';
export * from './order-mix';
export * from './run-load';
export { renderHtmlReport } from './report/html-report';
export { renderSummary, type EmailCheck, type LoadReport, type LoadStop } from './report/report';
export { lineChart } from './report/svg-chart';
export { formatVerdict, judge, MinPlacedShare, type LoadVerdict } from './report/verdict';
export type { LoadgenCpu } from './run/cpu-account';
export type { PercentileSummary } from './run/latency-stats';
export type { OutcomeTotals, TerminalType } from './run/outcome-tracker';
export type { SecondPoint } from './run/timeline';

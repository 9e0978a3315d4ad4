// Reading a service's `GET /metrics` in tests; the parser is the one the console uses.
import { parseMetrics, type Sample } from '@pipeline/observability';

export { parseMetrics, series, sum, type Sample } from '@pipeline/observability';

export async function scrape(baseUrl: string): Promise<Sample[]> {
  const response = await fetch(`${baseUrl}/metrics`);
  if (!response.ok) throw new Error(`GET ${baseUrl}/metrics answered ${response.status}`);
  return parseMetrics(await response.text());
}

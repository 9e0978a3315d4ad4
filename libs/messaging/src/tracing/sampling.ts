/**
 * Whether a W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) is sampled: bit 0 of the flags.
 * The consumer and the relay create spans only for sampled traces, so at a 1 % ratio 99 % of the
 * events cost no span, no attribute and no database span at all.
 */
export function isSampled(traceparent: string | undefined): boolean {
  if (traceparent === undefined || traceparent.length < 55) return false;
  return (Number.parseInt(traceparent.slice(53, 55), 16) & 1) === 1;
}

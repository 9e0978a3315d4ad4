import { diag, trace, type Attributes, type Context, type Link, type SpanKind } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SamplingResult,
} from '@opentelemetry/sdk-trace';

type Environment = Readonly<Record<string, string | undefined>>;

const isLinkSampled = (link: Link): boolean => (link.context.traceFlags & 1) === 1;

/**
 * A parent-based sampler that treats links like parents: a root span that stands for the work of
 * other traces (order-service's group commit, one transaction for the orders of many requests,
 * linked to each) is sampled when one of them is, and not when none is. Without it such a span
 * would be a root and always sampled, so a load run that traces 1 % of its orders would still
 * send one trace per group. Every other span is the wrapped sampler's decision.
 */
export class LinkedRootSampler implements Sampler {
  constructor(private readonly parentBased: Sampler) {}

  shouldSample(
    context: Context,
    traceId: string,
    spanName: string,
    spanKind: SpanKind,
    attributes: Attributes,
    links: Link[],
  ): SamplingResult {
    if (links.length > 0 && trace.getSpanContext(context) === undefined)
      return {
        decision: links.some(isLinkSampled)
          ? SamplingDecision.RECORD_AND_SAMPLED
          : SamplingDecision.NOT_RECORD,
      };
    return this.parentBased.shouldSample(context, traceId, spanName, spanKind, attributes, links);
  }

  toString(): string {
    return `LinkedRootSampler{${this.parentBased.toString()}}`;
  }
}

/**
 * The sampler named by the standard `OTEL_TRACES_SAMPLER` / `OTEL_TRACES_SAMPLER_ARG`, read as
 * the SDK reads them (default `parentbased_always_on`); the parent-based ones also follow links
 * (LinkedRootSampler).
 */
export function samplerFromEnv(env: Environment = process.env): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_always_on';
  const parentBased = (root: Sampler) => new LinkedRootSampler(new ParentBasedSampler({ root }));
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratioFromEnv(env));
    case 'parentbased_always_on':
      return parentBased(new AlwaysOnSampler());
    case 'parentbased_always_off':
      return parentBased(new AlwaysOffSampler());
    case 'parentbased_traceidratio':
      return parentBased(new TraceIdRatioBasedSampler(ratioFromEnv(env)));
    default:
      diag.error(`unknown OTEL_TRACES_SAMPLER value "${name}", using parentbased_always_on`);
      return parentBased(new AlwaysOnSampler());
  }
}

/** OTEL_TRACES_SAMPLER_ARG within [0, 1]; 1 when unset or invalid, as the SDK does. */
function ratioFromEnv(env: Environment): number {
  const text = env.OTEL_TRACES_SAMPLER_ARG?.trim();
  const ratio = text ? Number(text) : Number.NaN;
  if (Number.isFinite(ratio) && ratio >= 0 && ratio <= 1) return ratio;
  diag.error(`OTEL_TRACES_SAMPLER_ARG="${text ?? ''}" is not a ratio within [0, 1], using 1`);
  return 1;
}

import { ROOT_CONTEXT, SpanKind, trace, TraceFlags, type Link } from '@opentelemetry/api';
import { SamplingDecision } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { samplerFromEnv } from './sampler';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const spanContext = (sampled: boolean) => ({
  traceId: TRACE_ID,
  spanId: 'b7ad6b7169203331',
  traceFlags: sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
  isRemote: true,
});
const child = (sampled: boolean) => trace.setSpanContext(ROOT_CONTEXT, spanContext(sampled));
const link = (sampled: boolean): Link => ({ context: spanContext(sampled) });

function decide(env: Record<string, string>, context = ROOT_CONTEXT, links: Link[] = []): SamplingDecision {
  return samplerFromEnv(env).shouldSample(context, TRACE_ID, 'span', SpanKind.SERVER, {}, links).decision;
}

const { RECORD_AND_SAMPLED: SAMPLED, NOT_RECORD } = SamplingDecision;

describe('samplerFromEnv', () => {
  it('is parentbased_always_on by default: roots are traced, a parent keeps its flag', () => {
    expect(decide({})).toBe(SAMPLED);
    expect(decide({}, child(true))).toBe(SAMPLED);
    expect(decide({}, child(false))).toBe(NOT_RECORD);
  });

  it('samples a linked root when one of its links is sampled, and only then', () => {
    expect(decide({}, ROOT_CONTEXT, [link(false), link(false)])).toBe(NOT_RECORD);
    expect(decide({}, ROOT_CONTEXT, [link(false), link(true)])).toBe(SAMPLED);
    // A span with a parent follows the parent, whatever it links to.
    expect(decide({}, child(false), [link(true)])).toBe(NOT_RECORD);
  });

  it('reads the standard variables', () => {
    expect(decide({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe(NOT_RECORD);
    expect(decide({ OTEL_TRACES_SAMPLER: 'always_on' }, child(false))).toBe(SAMPLED);
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' })).toBe(NOT_RECORD);
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, child(true))).toBe(SAMPLED);
    const ratio = (arg: string) => ({
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: arg,
    });
    expect(decide(ratio('0'))).toBe(NOT_RECORD);
    expect(decide(ratio('1'))).toBe(SAMPLED);
    expect(decide(ratio('0'), child(true))).toBe(SAMPLED);
    expect(decide(ratio('0'), ROOT_CONTEXT, [link(true)])).toBe(SAMPLED);
    expect(decide({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }, child(true))).toBe(
      NOT_RECORD,
    );
  });

  it('falls back as the SDK does on a value it does not know', () => {
    expect(decide({ OTEL_TRACES_SAMPLER: 'sometimes' }, child(false))).toBe(NOT_RECORD);
    expect(decide({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: 'x' })).toBe(
      SAMPLED,
    );
  });
});

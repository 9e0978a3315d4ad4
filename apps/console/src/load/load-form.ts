import { ServiceNames } from '@pipeline/contracts';
import {
  DefaultMix,
  DefaultTraceRatio,
  LoadConfigError,
  parseMix,
  type ArrivalModel,
  type LoadConfig,
} from '@pipeline/load';
import { z } from 'zod';
import type { ConsoleConfig } from '../config';
import { consumedTopics } from '../flow/flow-topology';

/**
 * Bounds that keep one click from overrunning a laptop: the CLI has none, the page does. The run
 * keeps one entry per placed order in the console's memory (about 100 bytes), hence `maxOrders`.
 */
export const LoadLimits = {
  maxRate: 1000,
  maxDurationSeconds: 3600,
  maxSteps: 20,
  maxStepSeconds: 600,
  maxOrders: 360_000,
};

const blankToUndefined = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

const number = (min: number, max: number, fallback: number) =>
  z.preprocess(blankToUndefined, z.coerce.number().min(min).max(max).default(fallback));

/** The Load page's form, as posted (every field a string, blank meaning "not given"). */
export const LoadForm = z
  .object({
    rate: number(0.1, LoadLimits.maxRate, 20),
    duration: number(1, LoadLimits.maxDurationSeconds, 30),
    mix: z.preprocess(
      blankToUndefined,
      z
        .string()
        .default(DefaultMix)
        .transform((text, context) => {
          try {
            return parseMix(text);
          } catch (error) {
            if (!(error instanceof LoadConfigError)) throw error;
            context.addIssue({ code: 'custom', message: error.message.replace(/^--mix: /, '') });
            return z.NEVER;
          }
        }),
    ),
    /** A ramp: `5,10,20` orders/s, each for stepSeconds; it replaces rate and duration. */
    steps: z.preprocess(
      blankToUndefined,
      z
        .string()
        .regex(/^\s*\d+(\.\d+)?(\s*,\s*\d+(\.\d+)?)*\s*$/, { message: 'must be rates separated by commas' })
        .transform((text) => text.split(',').map(Number))
        .refine((steps) => steps.length <= LoadLimits.maxSteps, {
          message: `at most ${LoadLimits.maxSteps} steps`,
        })
        .refine((steps) => steps.every((rate) => rate >= 0.001 && rate <= LoadLimits.maxRate), {
          message: `each step must be within 0.001 and ${LoadLimits.maxRate} orders/s`,
        })
        .optional(),
    ),
    stepSeconds: number(1, LoadLimits.maxStepSeconds, 10),
    traceRatio: number(0, 1, DefaultTraceRatio),
  })
  .superRefine((form, context) => {
    // A ramp replaces rate and duration: bound what the run asks for in all, whichever it is.
    // (zod runs this even when a field failed: judge only a form whose fields all parsed.)
    if (![form.rate, form.duration, form.stepSeconds].every(Number.isFinite)) return;
    if (form.steps !== undefined && !Array.isArray(form.steps)) return;
    const seconds = form.steps === undefined ? form.duration : form.steps.length * form.stepSeconds;
    const orders =
      form.steps === undefined
        ? form.rate * form.duration
        : form.steps.reduce((n, rate) => n + rate * form.stepSeconds, 0);
    const field = form.steps === undefined ? 'duration' : 'steps';
    if (seconds > LoadLimits.maxDurationSeconds)
      context.addIssue({
        code: 'custom',
        path: [field],
        message: `at most ${LoadLimits.maxDurationSeconds} s in all`,
      });
    if (orders > LoadLimits.maxOrders)
      context.addIssue({
        code: 'custom',
        path: [field],
        message: `at most ${LoadLimits.maxOrders} orders in one run`,
      });
  });

export type LoadFormInput = z.output<typeof LoadForm>;

const badRequest = (message: string) => Object.assign(new Error(message), { statusCode: 400 });

/** Validates the posted form; a 400 names every invalid field. */
export function parseLoadForm(body: unknown): LoadFormInput {
  const parsed = LoadForm.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  throw badRequest(`invalid load run: ${fields}`);
}

export function arrivalModel(form: LoadFormInput): ArrivalModel {
  return form.steps === undefined
    ? { kind: 'open', rate: form.rate, durationSeconds: form.duration }
    : { kind: 'stepped', steps: form.steps, stepSeconds: form.stepSeconds };
}

/** The services' groups (as the flow page names them) and the saga topics each consumes. */
const serviceGroups = (config: ConsoleConfig): Record<string, readonly string[]> =>
  Object.fromEntries(ServiceNames.map((service) => [config.groups[service], consumedTopics(service)]));

/** The run the form asks for, against the pipeline this console watches. */
export function loadConfigOf(form: LoadFormInput, config: ConsoleConfig): LoadConfig {
  return {
    model: arrivalModel(form),
    maxInFlight: 1000,
    connections: 64,
    baseUrl: config.services.order[0]!,
    mix: form.mix,
    customers: 1000,
    seed: Math.floor(Math.random() * 2 ** 31),
    traceRatio: form.traceRatio,
    kafkaBrokers: config.kafka.brokers,
    topicPrefix: config.kafka.topicPrefix,
    groups: serviceGroups(config),
    lagIntervalMs: 2000,
    drainSeconds: 30,
    checkEmails: false,
    maildevUrl: config.mail.apiUrl,
  };
}

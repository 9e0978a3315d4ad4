// How a service name and event types become file, class, topic and folder names.

export const SERVICE_NAME = /^[a-z][a-z0-9]*$/;
/** `noun.past-tense-verb`, e.g. `shipment.scheduled` (STYLE.md). */
export const EVENT_TYPE = /^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/;

const words = (text: string): string[] => text.split(/[^a-z0-9]+/i).filter(Boolean);
export const pascal = (text: string): string =>
  words(text)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
export const camel = (text: string): string => {
  const name = pascal(text);
  return name[0]!.toLowerCase() + name.slice(1);
};
export const kebab = (text: string): string => words(text).join('-').toLowerCase();

/** `scheduled` → `schedule`, `confirmed` → `confirm`, `shipped` → `ship`: good enough to name a folder. */
export function presentTense(verb: string): string {
  if (!verb.endsWith('ed')) return verb;
  const stem = verb.slice(0, -2);
  if (/([b-df-hj-np-tv-z])\1$/.test(stem) && !/(ss|ll)$/.test(stem)) return stem.slice(0, -1);
  return /([cvzgsu]|[aiou][ntl])$/.test(stem) ? `${stem}e` : stem;
}

export interface EventNames {
  readonly type: string;
  /** `ShipmentScheduled` */
  readonly pascal: string;
  /** `shipment-scheduled`: the `.event.ts` file's name. */
  readonly file: string;
  readonly noun: string;
  readonly verb: string;
}

export function eventNames(type: string): EventNames {
  const [noun = '', verb = ''] = type.split('.');
  return { type, pascal: pascal(type), file: kebab(type), noun, verb };
}

/** The topic a new event's noun gets: `shipment` → `shipments`. */
export const topicOfNoun = (noun: string): string => (noun.endsWith('s') ? noun : `${noun}s`);

/** The use case the handlers form: `schedule-shipment` from `shipment.scheduled`. */
export function defaultUseCase(consumes: readonly string[], produces: readonly string[]): string {
  const produced = produces[0];
  if (produced !== undefined) {
    const { noun, verb } = eventNames(produced);
    return kebab(`${presentTense(verb)}-${noun}`);
  }
  return kebab(`handle-${consumes[0] ?? 'events'}`);
}

import type { JsonSchema } from '../asyncapi/asyncapi-document';

/**
 * The contract compatibility rules: what a schema registry's FULL check (backward and forward)
 * says for JSON events, where both sides matter. Old consumers read new events (forward) and
 * new consumers read the records of the old schema still retained on the topic (backward).
 * Consumers drop fields they do not know (readEvent in libs/contracts), so an added optional
 * field passes; anything that changes what a value may be fails. docs/contracts.md.
 */

/** Keywords that document a value and never change which values are valid. */
const ANNOTATIONS = new Set(['description', 'title', 'examples', 'default', 'deprecated', '$comment']);
/** Keywords with their own rule below; every other keyword must stay equal. */
const RULED = new Set([
  'type',
  'anyOf',
  'oneOf',
  'enum',
  'const',
  'format',
  'pattern',
  'properties',
  'required',
]);

type Schemas = Readonly<Record<string, JsonSchema>>;

const isSchema = (value: unknown): value is JsonSchema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** JSON with sorted keys: equal values give equal text. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isSchema(value)) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

const show = (value: unknown): string => (value === undefined ? 'none' : canonical(value));
const joinPath = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);

/** `string`, `integer | null` (a union's alternatives), or `any`. */
function typeOf(schema: JsonSchema): string {
  const { type } = schema;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return [...(type as string[])].sort().join(' | ');
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(alternatives)) return alternatives.map((item) => typeOf(item as JsonSchema)).join(' | ');
  return 'any';
}

const enumOf = (schema: JsonSchema): readonly unknown[] | undefined =>
  Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;

/**
 * Every incompatible difference between two versions of one schema, each naming the field by
 * its path (`items[].quantity`); empty when the change is compatible. `root` names the
 * schema itself (the payload, the record key).
 */
export function schemaChanges(before: JsonSchema, after: JsonSchema, root = 'the payload'): string[] {
  const nameOf = (path: string): string => (path === '' ? root : `field "${path}"`);

  const compare = (old: JsonSchema, now: JsonSchema, path: string): string[] => {
    const name = nameOf(path);
    const [oldType, newType] = [typeOf(old), typeOf(now)];
    // The rest of a schema whose type changed is noise: one message is the whole story.
    if (oldType !== newType) return [`${name} changed type from ${oldType} to ${newType}`];
    return [
      ...enumChanges(old, now, name),
      ...formatChanges(old, now, name),
      ...alternativeChanges(old, now, path),
      ...propertyChanges(old, now, path),
      ...otherChanges(old, now, path),
    ];
  };

  const alternativeChanges = (old: JsonSchema, now: JsonSchema, path: string): string[] =>
    (['anyOf', 'oneOf'] as const).flatMap((keyword) => {
      const [a, b] = [old[keyword], now[keyword]];
      if (!Array.isArray(a) || !Array.isArray(b)) return [];
      if (a.length !== b.length)
        return [`${nameOf(path)}: ${keyword} changed from ${a.length} to ${b.length} alternatives`];
      return a.flatMap((item, index) => compare(item as JsonSchema, b[index] as JsonSchema, path));
    });

  const propertyChanges = (old: JsonSchema, now: JsonSchema, path: string): string[] => {
    const [oldFields, newFields] = [(old.properties ?? {}) as Schemas, (now.properties ?? {}) as Schemas];
    const oldRequired = new Set((old.required ?? []) as string[]);
    const newRequired = new Set((now.required ?? []) as string[]);
    const added = Object.keys(newFields).filter((field) => !Object.hasOwn(oldFields, field));
    const changes: string[] = [];
    for (const [field, schema] of Object.entries(oldFields)) {
      const at = joinPath(path, field);
      const kind = oldRequired.has(field) ? 'required' : 'optional';
      if (!Object.hasOwn(newFields, field)) {
        // A rename is a removal and an addition; say which addition it probably is.
        const twin = added.find((other) => compare(schema, newFields[other]!, '').length === 0);
        const renamed = twin === undefined ? '' : ` (renamed to "${joinPath(path, twin)}"?)`;
        changes.push(`${kind} field "${at}" was removed${renamed}`);
        continue;
      }
      if (kind === 'required' && !newRequired.has(field)) changes.push(`field "${at}" became optional`);
      if (kind === 'optional' && newRequired.has(field)) changes.push(`field "${at}" became required`);
      changes.push(...compare(schema, newFields[field]!, at));
    }
    for (const field of added.filter((name) => newRequired.has(name)))
      changes.push(`required field "${joinPath(path, field)}" was added`);
    return changes;
  };

  const otherChanges = (old: JsonSchema, now: JsonSchema, path: string): string[] => {
    const keywords = [...new Set([...Object.keys(old), ...Object.keys(now)])].filter(
      (keyword) => !ANNOTATIONS.has(keyword) && !RULED.has(keyword),
    );
    return keywords.flatMap((keyword) => {
      const [a, b] = [old[keyword], now[keyword]];
      if (keyword === 'items' && isSchema(a) && isSchema(b)) return compare(a, b, `${path}[]`);
      if (canonical(a) === canonical(b)) return [];
      return [`${nameOf(path)}: ${keyword} changed from ${show(a)} to ${show(b)}`];
    });
  };

  return compare(before, after, '');
}

function enumChanges(old: JsonSchema, now: JsonSchema, name: string): string[] {
  const [a, b] = [enumOf(old), enumOf(now)];
  if (a === undefined && b === undefined) return [];
  if (a === undefined) return [`${name} was narrowed to the values ${show(b)}`];
  if (b === undefined) return [`${name} is no longer limited to the values ${show(a)}`];
  const [oldValues, newValues] = [new Set(a.map(canonical)), new Set(b.map(canonical))];
  return [
    ...[...oldValues]
      .filter((value) => !newValues.has(value))
      .map((value) => `${name}: enum value ${value} was removed`),
    // Closed on both sides: a consumer built before the new value dead-letters the record.
    ...[...newValues]
      .filter((value) => !oldValues.has(value))
      .map((value) => `${name}: enum value ${value} was added (consumers built before it reject it)`),
  ];
}

/**
 * A `format` (uuid, email, date-time) is the contract; the `pattern` zod writes beside it is
 * its implementation of that format and may change with zod. A pattern alone is compared.
 */
function formatChanges(old: JsonSchema, now: JsonSchema, name: string): string[] {
  if (old.format !== now.format)
    return [`${name}: format changed from ${show(old.format)} to ${show(now.format)}`];
  if (old.format !== undefined || old.pattern === now.pattern) return [];
  return [`${name}: pattern changed from ${show(old.pattern)} to ${show(now.pattern)}`];
}

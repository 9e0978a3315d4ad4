import escapeHtml from 'escape-html';

/** HTML that is already safe to emit: built by `html`, never from raw input. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation =
  SafeHtml | string | number | bigint | boolean | null | undefined | readonly Interpolation[];

const render = (value: Interpolation): string => {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return (value as readonly Interpolation[]).map(render).join('');
  return escapeHtml(String(value));
};

/**
 * A tagged template that escapes every interpolated value unless it is itself `html`: the only
 * way pages are built, so record payloads, headers and error messages can never inject markup.
 */
export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Joins fragments (rows, list items) into one. */
export const join = (parts: readonly SafeHtml[]): SafeHtml =>
  new SafeHtml(parts.map((p) => p.value).join(''));

/** A compiled JSON path: property names and array indexes, walked with own-property look-ups only. */
export type JsonPath = readonly (string | number)[];

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** White space that is not a control character (a path is trimmed; control characters are refused). */
const SPACE = '[^\\S\\u0000-\\u001f\\u007f-\\u009f]';
const NAME = '(?!(?:__proto__|constructor|prototype)(?![A-Za-z0-9_$@-]))[A-Za-z0-9_$@-]+';
const INDEX = '\\[[0-9]{1,6}\\]';

/**
 * The grammar parseJsonPath accepts, as one pattern (request DTOs validate with it, so the OpenAPI document
 * states it): optional white space, an optional `$` (taken whenever it is there: `(?:\$|(?!\$))`), a first
 * step with or without its dot, then `.name` and `[index]` steps. A unit test holds the two to each other.
 */
export const JSON_PATH_PATTERN = new RegExp(
  `^${SPACE}*(?:\\$|(?!\\$))(?:\\.?${NAME}|${INDEX})(?:\\.${NAME}|${INDEX})*${SPACE}*$`,
);
const TOKEN = /\.?([A-Za-z0-9_$@-]+)|\[(\d{1,6})\]/y;

/**
 * Parses `$.a.b[0].c` (the `$` and the first dot are optional). Returns an error message when the path is
 * not in that small grammar. Prototype names are refused, so a path can only ever reach the request's data.
 */
export function parseJsonPath(text: string): JsonPath | string {
  let s = text.trim();
  if (s.startsWith('$')) s = s.slice(1);
  if (!s) return 'a JSON path needs at least one property, e.g. $.amount or $.items[0].sku';
  const out: (string | number)[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < s.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(s);
    if (!m || m.index !== at)
      return `a JSON path may hold only .name and [index] steps (at "${s.slice(at)}")`;
    if (m[1] !== undefined) {
      if (FORBIDDEN.has(m[1])) return `the name ${m[1]} is not allowed in a JSON path`;
      if (at > 0 && s[at] !== '.') return `a property after another step needs a dot (at "${s.slice(at)}")`;
      out.push(m[1]);
    } else {
      out.push(Number(m[2]));
    }
  }
  return out;
}

/** The value at a path, or undefined when any step is missing. */
export function readJsonPath(root: unknown, path: JsonPath): unknown {
  let current: unknown = root;
  for (const step of path) {
    if (typeof step === 'number') {
      if (!Array.isArray(current) || step >= current.length) return undefined;
      current = current[step] as unknown;
    } else {
      if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
      if (!Object.prototype.hasOwnProperty.call(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}

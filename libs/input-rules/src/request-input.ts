import { isUtf8 } from 'node:buffer';
import { HttpStatus } from '@nestjs/common';
import { ProblemException, RequestRefusal } from '@app/problems';

/**
 * Input limits of every request (docs/SECURITY.md, Input limits). They are checked on the raw
 * body before it is parsed, so a hostile body never reaches JSON.parse, class-transformer or the Archiver.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const LOWER_U = 0x75;

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const l = b | 0x20;
  return l >= 0x61 && l <= 0x66 ? l - 0x61 + 10 : -1;
}

function tooDeep(): RequestRefusal {
  return RequestRefusal.field(
    '$',
    `The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`,
  );
}

/**
 * One pass over the raw bytes of a JSON body: refuses (throws a 400 problem) nesting deeper than
 * MAX_JSON_DEPTH and bytes that are not UTF-8 (they would be replaced by U+FFFD without a word). Answers
 * true when an escape could hide U+0000 or a lone surrogate (`\u0000`, `\uD800`–`\uDFFF`): the parsed value
 * is then searched for the field to name (refusedText). Malformed JSON is left to JSON.parse; raw control
 * bytes cannot hide anything, JSON.parse refuses them inside strings.
 */
export function scanJsonBody(body: Uint8Array): boolean {
  let depth = 0;
  let inString = false;
  let suspect = false;
  const n = body.length;
  for (let i = 0; i < n; i++) {
    const c = body[i];
    if (inString) {
      if (c === QUOTE) inString = false;
      else if (c === BACKSLASH) {
        if (body[i + 1] === LOWER_U && i + 5 < n) {
          // \u0000, or \uD800–\uDFFF (a surrogate: the parsed text decides whether it is paired).
          const h0 = hexValue(body[i + 2]);
          const h1 = hexValue(body[i + 3]);
          if (
            (h0 === 0 && h1 === 0 && body[i + 4] === 0x30 && body[i + 5] === 0x30) ||
            (h0 === 13 && h1 >= 8)
          )
            suspect = true;
          i += 5;
        } else i++;
      }
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > MAX_JSON_DEPTH) throw tooDeep();
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  if (!isUtf8(body)) throw RequestRefusal.field('$', 'The request body is not valid UTF-8.');
  return suspect;
}

// With the u flag a surrogate range matches only a surrogate that is not half of a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
// eslint-disable-next-line no-control-regex -- U+0000 is what is looked for
const REFUSED_CHARACTERS = /\u0000|[\uD800-\uDFFF]/gu;

/** Why a text is refused anywhere in a request, or undefined when it is not. */
export function refusedCharacter(text: string): string | undefined {
  if (text.includes('\u0000')) return 'U+0000 (NUL)';
  if (LONE_SURROGATE.test(text)) return 'a lone surrogate (text that is not Unicode)';
  return undefined;
}

function fieldPath(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  // A member name that is itself refused is named with U+FFFD in place of what it holds.
  const safe = key.replace(REFUSED_CHARACTERS, '\uFFFD');
  return parent ? `${parent}.${safe}` : safe;
}

/**
 * The first string (member value or member name) of a parsed request value that holds U+0000 or a lone
 * surrogate, as a problem naming its path (`userName`, `account.id`, `items[2].sku`; `$` for the body
 * itself); undefined when there is none.
 */
export function refusedText(value: unknown, path = ''): RequestRefusal | undefined {
  if (typeof value === 'string') {
    const why = refusedCharacter(value);
    if (why === undefined) return undefined;
    const field = path || '$';
    return RequestRefusal.field(field, `${field} must not contain ${why}.`);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = refusedText(value[i], fieldPath(path, i));
      if (found) return found;
    }
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, member] of Object.entries(value)) {
      const memberPath = fieldPath(path, key);
      const why = refusedCharacter(key);
      if (why !== undefined)
        return RequestRefusal.field(memberPath, `The member name ${memberPath} must not contain ${why}.`);
      const found = refusedText(member, memberPath);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * A query string whose percent-encoding does not decode to UTF-8 (Node's decoder would replace the bytes
 * with U+FFFD without a word, which is how a lone surrogate arrives in a URL): the parameter's name, or
 * undefined when every parameter decodes.
 */
export function undecodableQueryParameter(rawQuery: string): string | undefined {
  if (!rawQuery.includes('%')) return undefined;
  for (const pair of rawQuery.split('&')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    for (const part of eq < 0 ? [pair] : [name, pair.slice(eq + 1)]) {
      try {
        decodeURIComponent(part.replace(/\+/g, ' '));
      } catch {
        let shown = name;
        try {
          shown = decodeURIComponent(name);
        } catch {
          shown = 'a parameter name';
        }
        return shown;
      }
    }
  }
  return undefined;
}

/** A query or form parameter given more than once (refused, never guessed: docs/SECURITY.md). */
export function repeatedParameter(name: string): RequestRefusal {
  return RequestRefusal.field(name, `${name} must be given once.`);
}

/**
 * Member names that no request DTO declares and that JSON.parse keeps as own members, but that
 * class-transformer passes over (so the whitelist never saw them): `__proto__` and `constructor`; and
 * `prototype`, for good measure (prototype pollution through a body's member names).
 */
const RESERVED_MEMBERS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The path of the first member of a parsed request value named `__proto__`, `constructor` or `prototype`, at
 * any depth; undefined when there is none. A DTO route refuses it as any unknown member.
 */
export function reservedMemberPath(value: unknown, path = ''): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]]);
  for (const [key, member] of entries) {
    const memberPath = fieldPath(path, key);
    if (typeof key === 'string' && RESERVED_MEMBERS.has(key)) return memberPath;
    const found = reservedMemberPath(member, memberPath);
    if (found) return found;
  }
  return undefined;
}

/** The 400 problem of an unknown member sent to a route whose body is a DTO (class-validator's wording). */
export function unknownBodyMember(path: string): RequestRefusal {
  return RequestRefusal.field(path, `property ${path} should not exist`);
}

/** The 400 problem of a route that takes no body but was sent members. */
export function unexpectedBodyMember(name: string): RequestRefusal {
  return RequestRefusal.field(name, `property ${name} should not exist (this route takes no body)`);
}

/** A route that takes JSON was sent a body of another media type (forms, text, XML …). */
export function unsupportedMediaType(): ProblemException {
  return new ProblemException(
    HttpStatus.UNSUPPORTED_MEDIA_TYPE,
    'Unsupported Media Type',
    'This route takes a JSON body (Content-Type: application/json).',
  );
}

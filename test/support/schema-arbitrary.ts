import fc from 'fast-check';

/** The parts of an OpenAPI 3.0 schema object the generator reads. */
export interface Schema {
  $ref?: string;
  type?: string;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  nullable?: boolean;
  items?: Schema;
  maxItems?: number;
  minItems?: number;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
}

/**
 * Removes lookaheads from a pattern (fast-check cannot generate them): what is left generates a superset of the
 * pattern's language, and the caller keeps only the values the whole pattern (through Ajv) accepts.
 */
export function withoutLookaheads(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    if (source[i] === '\\') {
      out += source.slice(i, i + 2);
      i++;
      continue;
    }
    if (source.startsWith('(?=', i) || source.startsWith('(?!', i)) {
      let depth = 0;
      let inClass = false;
      for (; i < source.length; i++) {
        const c = source[i];
        if (c === '\\') i++;
        else if (inClass) inClass = c !== ']';
        else if (c === '[') inClass = true;
        else if (c === '(') depth++;
        else if (c === ')' && --depth === 0) break;
      }
      continue;
    }
    out += source[i];
  }
  return out;
}

/** A string of exactly `n` code points, from a small alphabet with a few wide ones (astral, combining). */
const exactly = (n: number) =>
  fc
    .array(fc.constantFrom('a', 'Z', '7', 'é', '語', '😀', '\u0301', ' '), { minLength: n, maxLength: n })
    .map((cs) => cs.join(''));

/** Text that is not U+0000 and holds no lone surrogate: the input rules refuse both everywhere (info.description). */
const text = (min: number, max: number) =>
  fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, Math.max(min, 24)) });

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 64;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time')
    return fc
      .date({
        min: new Date('0001-01-01T00:00:00Z'),
        max: new Date('9999-12-31T23:59:59Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString());
  if (schema.pattern) return fc.stringMatching(new RegExp(withoutLookaheads(schema.pattern)));
  return fc.oneof({ weight: 4, arbitrary: text(min, max) }, exactly(min), exactly(max));
}

/** Values the schema may take (a superset where a pattern has lookaheads: the caller filters through Ajv). */
export function arbitraryOf(schema: Schema, resolve: (ref: string) => Schema): fc.Arbitrary<unknown> {
  if (schema.$ref) return arbitraryOf(resolve(schema.$ref), resolve);
  const value = nonNullArbitrary(schema, resolve);
  return schema.nullable ? fc.oneof(value, fc.constant(null)) : value;
}

function nonNullArbitrary(schema: Schema, resolve: (ref: string) => Schema): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => arbitraryOf(s, resolve)));
  if (schema.enum) return fc.constantFrom(...schema.enum.filter((v) => v !== null));
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return fc.oneof(
        fc.integer({ min: schema.minimum ?? -1_000_000_000, max: schema.maximum ?? 1_000_000_000 }),
        fc.constantFrom(...[schema.minimum, schema.maximum].filter((n): n is number => n !== undefined), 0),
      );
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum, max: schema.maximum });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}, resolve), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 8, 8),
      });
    case 'object':
    case undefined: {
      if (!schema.properties) return fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue());
      const required = new Set(schema.required ?? []);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, s] of Object.entries(schema.properties)) record[name] = arbitraryOf(s, resolve);
      return fc.record(record, { requiredKeys: [...required] });
    }
    default:
      throw new Error(`no generator for schema type ${schema.type}`);
  }
}

/** Values that break something: wrong types, bounds just past, odd text, null. The caller keeps those Ajv refuses. */
export function oddValuesFor(schema: Schema): unknown[] {
  const out: unknown[] = [null, true, 1.5, -1, 'x', '', {}, [], ' ', 'a\u0001b', 'not-a-guid'];
  if (schema.maxLength !== undefined) out.push('a'.repeat(schema.maxLength + 1));
  if (schema.minLength !== undefined && schema.minLength > 0) out.push('a'.repeat(schema.minLength - 1));
  if (schema.maximum !== undefined) out.push(schema.maximum + 1);
  if (schema.minimum !== undefined) out.push(schema.minimum - 1);
  if (schema.maxItems !== undefined) out.push(Array.from({ length: schema.maxItems + 1 }, () => 1));
  if (schema.type === 'integer') out.push(2 ** 53, '12');
  return out;
}

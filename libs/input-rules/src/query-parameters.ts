import { type FieldErrorCode, RequestRefusal } from '@app/problems';

/** What the served document says of one query parameter's value (the part of its schema checked here). */
export interface QuerySchema {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
}

/** The query parameters of each operation of the served document, by operationId. */
export type DeclaredQueries = ReadonlyMap<string, ReadonlyMap<string, QuerySchema>>;

interface DocumentParameter {
  in?: string;
  name?: string;
  schema?: QuerySchema;
}
interface DocumentLike {
  paths: Record<string, object>;
}

/** Each operation's declared query parameters, read from the OpenAPI document (the one the service serves). */
export function declaredQueries(document: DocumentLike): DeclaredQueries {
  const out = new Map<string, Map<string, QuerySchema>>();
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      const { operationId, parameters } = (op ?? {}) as { operationId?: string; parameters?: unknown[] };
      if (typeof operationId !== 'string') continue;
      const query = new Map<string, QuerySchema>();
      for (const p of (parameters ?? []) as DocumentParameter[])
        if (p.in === 'query' && typeof p.name === 'string') query.set(p.name, p.schema ?? {});
      out.set(operationId, query);
    }
  }
  return out;
}

function refusal(name: string, message: string, code: FieldErrorCode): RequestRefusal {
  return RequestRefusal.field(name, message, code);
}

/** Plain decimal notation (what a typed client writes for a number), with the white space a URL may keep. */
const DECIMAL = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;
const patterns = new Map<string, RegExp>();

function typedValue(name: string, raw: string, schema: QuerySchema): string | number | boolean {
  if (schema.type === 'integer' || schema.type === 'number') {
    const n = DECIMAL.test(raw) ? Number(raw) : NaN;
    if (!Number.isFinite(n) || (schema.type === 'integer' && !Number.isInteger(n)))
      throw refusal(
        name,
        `${name} must be ${schema.type === 'integer' ? 'a whole number' : 'a number'}.`,
        'invalid_value',
      );
    return n;
  }
  if (schema.type === 'boolean') {
    if (raw !== 'true' && raw !== 'false')
      throw refusal(name, `${name} must be true or false.`, 'not_in_enum');
    return raw === 'true';
  }
  return raw;
}

/** Refuses a value its schema refuses: the type, the allowed values, the bounds, the pattern. */
function checkValue(name: string, raw: string, schema: QuerySchema): void {
  const value = typedValue(name, raw, schema);
  if (schema.enum && !schema.enum.includes(value))
    throw refusal(name, `${name} must be one of: ${schema.enum.join(', ')}.`, 'not_in_enum');
  if (typeof value === 'number') {
    if (
      (schema.minimum !== undefined && value < schema.minimum) ||
      (schema.maximum !== undefined && value > schema.maximum)
    )
      throw refusal(
        name,
        `${name} must be from ${schema.minimum ?? '−∞'} to ${schema.maximum ?? '∞'}.`,
        'out_of_range',
      );
    return;
  }
  if (typeof value !== 'string') return;
  const length = [...value].length;
  if (
    (schema.minLength !== undefined && length < schema.minLength) ||
    (schema.maxLength !== undefined && length > schema.maxLength)
  )
    throw refusal(
      name,
      `${name} must be from ${schema.minLength ?? 0} to ${schema.maxLength ?? '∞'} characters.`,
      'out_of_range',
    );
  if (schema.pattern !== undefined) {
    let re = patterns.get(schema.pattern);
    if (!re) patterns.set(schema.pattern, (re = new RegExp(schema.pattern, 'u')));
    if (!re.test(value))
      throw refusal(name, `${name} is not of the form the document states.`, 'invalid_value');
  }
}

/**
 * The query string held to the operation's declared parameters (the served document's): a parameter it does
 * not declare (`limt=5`), one given with no value (`limit=`), given twice, or whose value its schema refuses
 * (a type, an enum, a bound, a pattern) is a 400 naming it, with the code of what is wrong. Rules between
 * parameters are the handlers' (422). `query` is Express's parsed query; `rawQuery` the text after `?`.
 */
export function checkDeclaredQuery(
  declared: ReadonlyMap<string, QuerySchema>,
  query: Record<string, unknown>,
  rawQuery: string,
): void {
  const seen = new Set<string>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    let name: string;
    try {
      name = decodeURIComponent((eq < 0 ? pair : pair.slice(0, eq)).replace(/\+/g, ' '));
    } catch {
      throw refusal(
        'a parameter name',
        'A query parameter name is not valid percent-encoded UTF-8.',
        'invalid_value',
      );
    }
    const schema = declared.get(name);
    if (!schema) throw refusal(name, `${name} is not a parameter of this operation.`, 'unknown_parameter');
    if (seen.has(name)) throw refusal(name, `${name} must be given once.`, 'repeated_parameter');
    seen.add(name);
    const value = query[name];
    if (typeof value !== 'string')
      throw refusal(name, `${name} must be given once, as text.`, 'invalid_value');
    if (value === '')
      throw refusal(name, `${name} is empty: give a value, or leave the parameter out.`, 'empty_value');
    checkValue(name, value, schema);
  }
}

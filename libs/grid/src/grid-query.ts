import { GUID_PATTERN } from '@app/input-rules';
import { Problems } from '@app/problems';
import type { GridDefinition } from './grid-definition';
import { SAMPLE_SEED_MAX } from './sampling';

export const MAX_TAKE = 100_000;
export const DEFAULT_TAKE = 100;
export const DEFAULT_WINDOW_MS = 3_600_000;
export const MAX_SEARCH_LENGTH = 256;

/**
 * A filter of a request: an exact match of a column, or (`except`) whether a flag column is set with a code
 * outside `except` (`value` true) or not (false). Columns and codes come from the grid's declaration.
 */
export type QueryFilter =
  | { column: string; value: number | string | boolean }
  | { column: string; value: boolean; codeColumn: string; except: readonly number[] };

/** A grid request after validation: everything here is safe to turn into parameters. */
export interface GridQuery {
  from: Date;
  to: Date;
  /** True when from/to were not given (they follow the clock). */
  fromDefaulted: boolean;
  toDefaulted: boolean;
  filters: QueryFilter[];
  search: string | null;
  take: number;
  samplePercentage: number | null;
  sampleSeed: number | null;
  /** Database column and direction. */
  sort: { column: string; direction: 'ASC' | 'DESC' } | null;
  /**
   * Rows only (never total or statistics): those before this row in the newest-first order, i.e. earlier
   * than `time`, or at `time` with a lower id (beforeTime, beforeId: "older rows" keyed on the last row shown,
   * so a page stays right while rows arrive). Null: no such bound (the spec's grid).
   */
  before: { time: Date; id: number | null } | null;
}

type RawQuery = Record<string, unknown>;

/** A query parameter given once, as text; repeating a parameter is refused rather than guessed. */
function single(q: RawQuery, name: string): string | undefined {
  const v = q[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw Problems.badParameter(name, `${name} must be given once, as text.`);
  return v;
}

const EARLIEST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/** Month and day of every year (February up to the 28th); the 29th of February only in a leap year. */
const MONTH_DAY =
  '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)';

/**
 * ISO 8601 date and time of a real calendar day (years 0001 to 9999), with an offset (Z or ±hh:mm / ±hhmm) or
 * without one (then UTC). A `+` left unencoded in a query string arrives decoded as a space: ` hh:mm` is read
 * as `+hh:mm`. Without flags, so the OpenAPI document states it as the parameters' pattern: what it matches
 * is what parseInstant takes, but an offset that moves an instant of 0001-01-01 or 9999-12-31 past either end.
 */
export const INSTANT_SOURCE =
  '^\\s*((?!0000)[0-9]{4}-' +
  MONTH_DAY +
  '|' +
  LEAP_YEAR +
  '-02-29)[Tt]([01][0-9]|2[0-3]):([0-5][0-9])(?::([0-5][0-9])(?:\\.([0-9]{1,9}))?)?([Zz]|[+\\- ](?:[01][0-9]|2[0-3]):?[0-5][0-9])?\\s*$';
const INSTANT = new RegExp(INSTANT_SOURCE);
/** The parts of a matched instant: date, hours, minutes, seconds, fraction, offset. */
const INSTANT_PARTS = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

export function parseInstant(name: string, raw: string): Date {
  const text = raw.trim();
  const m = INSTANT.exec(text);
  if (!m) {
    throw Problems.badParameter(
      name,
      `${name} must be an ISO 8601 date and time, e.g. 2026-01-31T13:45:00Z (no offset: UTC).`,
    );
  }
  const [, calendarDay, h, mi, s, , offset] = m;
  const [, y, mo, d] = INSTANT_PARTS.exec(calendarDay) ?? [];
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > daysInMonth ||
    Number(h) > 23 ||
    Number(mi) > 59 ||
    Number(s ?? 0) > 59
  ) {
    throw Problems.badParameter(name, `${name} is not a real date and time.`);
  }
  const base = text.slice(0, text.length - (offset?.length ?? 0));
  const zone = offset === undefined ? 'Z' : offset.startsWith(' ') ? `+${offset.slice(1)}` : offset;
  const date = new Date(`${base}${zone}`);
  if (Number.isNaN(date.getTime())) throw Problems.badParameter(name, `${name} is not a real date and time.`);
  // What every database stores (SQL Server's datetime2 ends there), after the offset is applied.
  if (date.getTime() < EARLIEST_INSTANT || date.getTime() > LATEST_INSTANT)
    throw Problems.badParameter(
      name,
      `${name} must be from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z (in UTC).`,
    );
  return date;
}

function parseInteger(name: string, raw: string): number {
  if (!/^[+-]?\d{1,15}$/.test(raw.trim()))
    throw Problems.badParameter(name, `${name} must be a whole number.`);
  return Number(raw.trim());
}

function parseNumber(name: string, raw: string): number {
  const t = raw.trim();
  // Plain decimal notation only: no NaN, Infinity, hex, percent signs or trailing text.
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(t))
    throw Problems.badParameter(name, `${name} must be a number.`);
  const n = Number(t);
  if (!Number.isFinite(n)) throw Problems.badParameter(name, `${name} must be a finite number.`);
  return n;
}

/** `true` or `false`, any letter case. */
function parseBoolean(name: string, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v !== 'true' && v !== 'false') throw Problems.badParameter(name, `${name} must be true or false.`);
  return v === 'true';
}

/** The grid's filters that were given, each checked against its declaration. */
function parseFilters(def: GridDefinition, q: RawQuery): GridQuery['filters'] {
  const filters: GridQuery['filters'] = [];
  for (const f of def.filters) {
    const raw = single(q, f.param);
    if (raw === undefined || raw === '') continue;
    if (f.type === 'integer') {
      const v = parseInteger(f.param, raw);
      if (v < f.min || v > f.max)
        throw Problems.badParameter(f.param, `${f.param} must be from ${f.min} to ${f.max}.`);
      filters.push({ column: f.column, value: v });
    } else if (f.type === 'boolean') {
      filters.push({ column: f.column, value: parseBoolean(f.param, raw) });
    } else if (f.type === 'flagExcept') {
      const value = parseBoolean(f.param, raw);
      filters.push({ column: f.column, value, codeColumn: f.codeColumn, except: f.except });
    } else {
      if (!GUID_PATTERN.test(raw.trim())) throw Problems.badParameter(f.param, `${f.param} must be a GUID.`);
      filters.push({ column: f.column, value: raw.trim().toLowerCase() });
    }
  }
  return filters;
}

/** beforeTime (and beforeId, which needs it): the keyset bound of "older rows". */
function parseBefore(q: RawQuery): GridQuery['before'] {
  const timeRaw = single(q, 'beforeTime');
  const idRaw = single(q, 'beforeId');
  const hasTime = timeRaw !== undefined && timeRaw !== '';
  const hasId = idRaw !== undefined && idRaw !== '';
  if (!hasTime) {
    if (hasId)
      throw Problems.conflictingParameters(
        ['beforeId', 'beforeTime'],
        'beforeId needs beforeTime (the row’s time) too.',
      );
    return null;
  }
  const time = parseInstant('beforeTime', timeRaw);
  if (!hasId) return { time, id: null };
  const id = parseInteger('beforeId', idRaw);
  if (id < 0) throw Problems.badParameter('beforeId', 'beforeId must be 0 or more.');
  return { time, id };
}

/** Validates a grid request against the grid's declaration. Every refusal is a 400 naming the parameter. */
export function parseGridQuery(def: GridDefinition, q: RawQuery, now: number): GridQuery {
  const fromRaw = single(q, 'from');
  const toRaw = single(q, 'to');
  const to = toRaw !== undefined ? parseInstant('to', toRaw) : new Date(now);
  const from = fromRaw !== undefined ? parseInstant('from', fromRaw) : new Date(now - DEFAULT_WINDOW_MS);
  if (from.getTime() > to.getTime()) {
    // Name the parameter the caller sent: a defaulted one is not theirs to fix.
    // Each is valid alone: together they contradict each other (422, docs/api-contract.md).
    if (fromRaw === undefined)
      throw Problems.conflictingParameters(
        ['to'],
        'to is earlier than the default from (one hour before now); give from as well.',
      );
    if (toRaw === undefined)
      throw Problems.conflictingParameters(
        ['from'],
        'from is later than the default to (now); give to as well.',
      );
    throw Problems.conflictingParameters(['from', 'to'], 'from must not be after to.');
  }

  const filters = parseFilters(def, q);

  let search: string | null = null;
  const searchRaw = single(q, 'search');
  if (searchRaw !== undefined && searchRaw !== '' && def.searchColumns.length) {
    // In code points, as the document's maxLength counts.
    if ([...searchRaw].length > MAX_SEARCH_LENGTH) {
      throw Problems.badParameter('search', `search must be at most ${MAX_SEARCH_LENGTH} characters.`);
    }
    search = searchRaw;
  }

  const takeRaw = single(q, 'take');
  let take = DEFAULT_TAKE;
  if (takeRaw !== undefined && takeRaw !== '') {
    // 1e9 is a whole number too; 1.5, 10abc, NaN are not.
    const n = parseNumber('take', takeRaw);
    if (!Number.isInteger(n)) throw Problems.badParameter('take', 'take must be a whole number.');
    take = Math.min(MAX_TAKE, Math.max(1, n));
  }

  const spRaw = single(q, 'samplePercentage');
  const samplePercentage =
    spRaw === undefined || spRaw === ''
      ? null
      : Math.min(100, Math.max(0, parseNumber('samplePercentage', spRaw)));
  const seedRaw = single(q, 'sampleSeed');
  let sampleSeed: number | null = null;
  if (seedRaw !== undefined && seedRaw !== '') {
    sampleSeed = parseInteger('sampleSeed', seedRaw);
    if (sampleSeed < 0 || sampleSeed > SAMPLE_SEED_MAX) {
      throw Problems.badParameter('sampleSeed', `sampleSeed must be from 0 to ${SAMPLE_SEED_MAX}.`);
    }
  }

  let sort: GridQuery['sort'] = null;
  if (def.sortable) {
    const field = single(q, 'sortField')?.trim().toLowerCase();
    // A shown column, or a derived member sorting by its stored column; anything else: newest first (spec).
    const column = field
      ? (def.columns.find((c) => c.name.toLowerCase() === field)?.column ??
        Object.entries(def.sortDerived ?? {}).find(([name]) => name.toLowerCase() === field)?.[1])
      : undefined;
    const dir = single(q, 'sortDirection');
    if (column) sort = { column, direction: dir?.trim().toLowerCase() === 'asc' ? 'ASC' : 'DESC' };
  }

  return {
    from,
    to,
    fromDefaulted: fromRaw === undefined,
    toDefaulted: toRaw === undefined,
    filters,
    search,
    take,
    samplePercentage,
    sampleSeed,
    sort,
    before: parseBefore(q),
  };
}

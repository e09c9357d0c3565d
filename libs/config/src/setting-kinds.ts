/** The kinds of setting, their builders and the errors of a setting that cannot be accepted. */
/** Interval unit codes of the spec: s seconds, n minutes, h hours, d days. */
export type IntervalUnit = 's' | 'n' | 'h' | 'd';
export type DatabaseProvider = 'sqlite' | 'postgres' | 'mssql';

const UNIT_MS: Record<IntervalUnit, number> = { s: 1000, n: 60_000, h: 3_600_000, d: 86_400_000 };

export function intervalToMilliseconds(unit: IntervalUnit, value: number): number {
  return UNIT_MS[unit] * value;
}

/** A setting that could not be accepted; the message names it and says what is allowed. */
export class SettingError extends Error {
  constructor(
    readonly setting: string,
    readonly allowed: string,
  ) {
    super(`Invalid setting ${setting}: ${allowed}`);
  }
}

export type Kind =
  | { type: 'boolean' }
  | { type: 'integer'; min: number; max: number }
  | {
      type: 'string';
      maxLength?: number;
      pattern?: RegExp;
      /** A check the pattern cannot say (TrustProxy's addresses). */
      accepts?: (value: string) => boolean;
      patternText?: string;
    }
  | { type: 'enum'; values: readonly string[]; caseInsensitive?: boolean }
  | { type: 'url'; protocols: readonly string[] };

export interface SettingDefinition {
  name: string;
  kind: Kind;
  /** undefined = optional with no value. */
  default?: string | number | boolean;
  /** Never logged, never echoed in an error. */
  secret?: boolean;
  /** Other environment names honoured when the main one is unset. */
  aliases?: string[];
  description: string;
}

type Extra = { secret?: boolean; aliases?: string[] };

export function bool<N extends string>(name: N, def: boolean, description: string) {
  return { name, kind: { type: 'boolean' as const }, default: def, description };
}
export function int<N extends string>(name: N, def: number, min: number, max: number, description: string) {
  return { name, kind: { type: 'integer' as const, min, max }, default: def, description };
}
/** An optional whole number with no default (unset means: derived at start, as the description says). */
export function optionalInt<N extends string>(name: N, min: number, max: number, description: string) {
  return { name, kind: { type: 'integer' as const, min, max }, description };
}
/** Optional text with no default. */
export function text<N extends string>(name: N, description: string, extra: Extra & { kind?: Kind } = {}) {
  const { kind, ...rest } = extra;
  return {
    name,
    kind: (kind ?? { type: 'string' as const, maxLength: 16_384 }) as { type: 'string' },
    description,
    ...rest,
  };
}
export function textWithDefault<N extends string>(
  name: N,
  def: string,
  description: string,
  extra: Extra = {},
) {
  return { name, kind: { type: 'string' as const, maxLength: 16_384 }, default: def, description, ...extra };
}
export function choice<N extends string, V extends string>(
  name: N,
  values: readonly V[],
  def: V,
  description: string,
) {
  return { name, kind: { type: 'enum' as const, values, caseInsensitive: true }, default: def, description };
}
export const UNITS = ['s', 'n', 'h', 'd'] as const;

/** The bound of the shutdown flush (the Archiver drain; capture queues): ShutdownTimeoutMilliseconds leaves room for it. */
export const SHUTDOWN_FLUSH_MS = 20_000;

/** spec: Second factor 4 — the bundled mock answers only while MultifactorAuthenticationClientKey is this. */
export const SHIPPED_MFA_CLIENT_KEY = 'ShippedDefaultClientKey';

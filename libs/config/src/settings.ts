import { intervalToMilliseconds, type Kind, SettingError, type SettingDefinition } from './setting-kinds';
import { crossCheck } from './settings-checks';
import {
  parseSentinelEndpoints,
  parseTrustProxy,
  parseTrustProxyHeaders,
  type SentinelEndpoint,
  type TrustedForwardedHeaders,
  type TrustedProxies,
} from './setting-parsers';
import { HOSTING_SETTINGS } from './settings-hosting';
import { PIPELINE_SETTINGS } from './settings-pipelines';
import { SPEC_SETTINGS } from './settings-spec';

export * from './setting-kinds';
export * from './setting-parsers';

/**
 * Every environment setting of the service, under the spec's exact names and with the spec's defaults.
 * The README's settings table is checked against this list by a test.
 */
export const SETTING_DEFINITIONS = [...HOSTING_SETTINGS, ...SPEC_SETTINGS, ...PIPELINE_SETTINGS] as const;

type Definitions = typeof SETTING_DEFINITIONS;
type ValueOf<K> = K extends { type: 'boolean' }
  ? boolean
  : K extends { type: 'integer' }
    ? number
    : K extends { type: 'enum'; values: readonly (infer V)[] }
      ? V
      : string;
type SettingName = Definitions[number]['name'];
type DefinitionOf<N extends SettingName> = Extract<Definitions[number], { name: N }>;

/** The validated settings. Optional settings with no default are undefined. */
export type SettingValues = {
  [N in SettingName]: DefinitionOf<N> extends { default: unknown }
    ? ValueOf<DefinitionOf<N>['kind']>
    : ValueOf<DefinitionOf<N>['kind']> | undefined;
};

export interface DerivedSettings {
  /** TrustProxy parsed (parseTrustProxy): what Express's 'trust proxy' is set to. */
  trustProxy: TrustedProxies;
  /** TrustProxyHeaders parsed: whether X-Forwarded-Proto and -Host are read from the trusted hops. */
  trustedForwardedHeaders: TrustedForwardedHeaders;
  /** SessionAbsoluteLifetimeInterval/Value in milliseconds. */
  sessionAbsoluteLifetimeMs: number;
  /** RevokedSessionCheckInterval/Value in milliseconds. */
  revokedSessionCheckMs: number;
  /** RedisSentinels parsed; empty when unset (a single Redis endpoint, or no Redis). */
  redisSentinels: readonly SentinelEndpoint[];
}

export type Settings = Readonly<SettingValues & DerivedSettings>;

function describeAllowed(kind: Kind): string {
  switch (kind.type) {
    case 'boolean':
      return 'allowed values are True or False (any case)';
    case 'integer':
      return `allowed values are whole numbers from ${kind.min} to ${kind.max}`;
    case 'enum':
      return `allowed values are ${kind.values.join(', ')}`;
    case 'url':
      return `allowed values are URLs with scheme ${kind.protocols.join(', ')}`;
    case 'string':
      return kind.patternText
        ? `allowed values are ${kind.patternText}`
        : `allowed values are text of at most ${kind.maxLength ?? 16384} characters`;
  }
}

function parseValue(def: SettingDefinition, raw: string): string | number | boolean {
  const k = def.kind;
  const fail = (): never => {
    throw new SettingError(def.name, describeAllowed(k));
  };
  switch (k.type) {
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (v === 'true') return true;
      if (v === 'false') return false;
      return fail();
    }
    case 'integer': {
      const v = raw.trim();
      if (!/^-?\d{1,16}$/.test(v)) return fail();
      const n = Number(v);
      if (!Number.isSafeInteger(n) || n < k.min || n > k.max) return fail();
      return n;
    }
    case 'enum': {
      const v = k.caseInsensitive ? raw.trim().toLowerCase() : raw.trim();
      if (!k.values.includes(v)) return fail();
      return v;
    }
    case 'url': {
      try {
        const u = new URL(raw);
        if (!k.protocols.includes(u.protocol.replace(/:$/, ''))) return fail();
      } catch {
        return fail();
      }
      return raw;
    }
    case 'string': {
      if (k.maxLength !== undefined && raw.length > k.maxLength) return fail();
      if (k.pattern && !k.pattern.test(raw)) return fail();
      if (k.accepts && !k.accepts(raw)) return fail();
      return raw;
    }
  }
}

/**
 * Reads and validates every setting from the environment. Throws SettingError naming the first bad
 * setting. Empty strings count as unset.
 */
export function loadSettings(
  env: NodeJS.ProcessEnv,
  definitions: readonly SettingDefinition[] = SETTING_DEFINITIONS,
): Settings {
  const out: Record<string, string | number | boolean | undefined> = {};
  for (const def of definitions) {
    let raw = env[def.name];
    for (const alias of [...(def.aliases ?? []), ...(def.name === 'Port' ? ['PORT'] : [])]) {
      if (raw === undefined || raw === '') raw = env[alias];
    }
    out[def.name] = raw === undefined || raw === '' ? def.default : parseValue(def, raw);
  }
  const s = out as unknown as SettingValues;
  crossCheck(s, env);
  return Object.freeze({
    ...s,
    sessionAbsoluteLifetimeMs: intervalToMilliseconds(
      s.SessionAbsoluteLifetimeInterval,
      s.SessionAbsoluteLifetimeIntervalValue,
    ),
    revokedSessionCheckMs: intervalToMilliseconds(
      s.RevokedSessionCheckInterval,
      s.RevokedSessionCheckIntervalValue,
    ),
    redisSentinels: Object.freeze(s.RedisSentinels ? (parseSentinelEndpoints(s.RedisSentinels) ?? []) : []),
    trustProxy: parseTrustProxy(s.TrustProxy) ?? false,
    trustedForwardedHeaders: parseTrustProxyHeaders(s.TrustProxyHeaders) ?? { proto: true, host: true },
  });
}

/** Names of the settings that must never appear in a log line or an error body. */
export const SECRET_SETTING_NAMES: readonly string[] = (SETTING_DEFINITIONS as readonly SettingDefinition[])
  .filter((d) => d.secret)
  .map((d) => d.name);

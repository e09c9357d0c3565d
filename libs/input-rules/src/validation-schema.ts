import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { RULE_SCHEMAS } from './validation';

/** JSON Schema keywords. */
export type SchemaKeywords = Record<string, unknown>;

/** What the validation of one property of a request DTO says, as JSON Schema. */
export interface PropertyRules {
  /** Keywords of the value. */
  value: SchemaKeywords;
  /** Keywords of each item (rules declared with `each`). */
  items: SchemaKeywords;
  /** The property may be left out (Optional, PartialType: a conditional validation). */
  optional: boolean;
}

/** A pattern as JSON Schema states it: its source, which only means the same without flags. */
function patternOf(pattern: unknown, cls: string, property: string): string {
  if (pattern instanceof RegExp && pattern.flags === '') return pattern.source;
  throw new Error(`${cls}.${property}: a Matches pattern for the document must be a RegExp without flags`);
}

/**
 * class-validator's rules by name, as JSON Schema keywords (the constraints as the rule holds them). Rules made
 * by ValidateWithSchema carry their own form (RULE_SCHEMAS).
 */
const RULES: Readonly<Record<string, (constraints: unknown[], where: [string, string]) => SchemaKeywords>> = {
  isString: () => ({ type: 'string' }),
  isBoolean: () => ({ type: 'boolean' }),
  isInt: () => ({ type: 'integer' }),
  isArray: () => ({ type: 'array' }),
  min: ([n]) => ({ minimum: n }),
  max: ([n]) => ({ maximum: n }),
  isIn: ([values]) => ({ enum: values }),
  arrayMaxSize: ([n]) => ({ maxItems: n }),
  arrayMinSize: ([n]) => ({ minItems: n }),
  matches: ([pattern], [cls, property]) => ({ pattern: patternOf(pattern, cls, property) }),
};

/** Keywords that name the same fact more than once: the last rule must agree with the first. */
function merge(into: SchemaKeywords, add: SchemaKeywords, where: string): void {
  for (const [key, value] of Object.entries(add)) {
    if (key in into && JSON.stringify(into[key]) !== JSON.stringify(value))
      throw new Error(`${where}: two rules state ${key} differently`);
    into[key] = value;
  }
}

function keywordsOf(m: ValidationMetadata, cls: string): SchemaKeywords | undefined {
  if (m.type === 'conditionalValidation' || m.type === 'whitelistValidation') return undefined;
  const name = m.name ?? '';
  const own = RULE_SCHEMAS.get(name);
  if (own) return own;
  const rule = RULES[name];
  if (m.type !== 'customValidation' || !rule)
    throw new Error(
      `${cls}.${m.propertyName}: the validation rule ${name || m.type} has no OpenAPI form (validation-schema.ts)`,
    );
  return rule(m.constraints ?? [], [cls, m.propertyName]);
}

/**
 * Every rule the validation of a request DTO enforces, per property, as JSON Schema: the document is made from
 * the same declarations the ValidationPipe runs, so the two cannot drift. A rule without a known form stops the
 * document from being built (a new rule gets its line in RULES, or is made with ValidateWithSchema).
 */
export function validationRulesOf(dto: new (...args: never[]) => unknown): Map<string, PropertyRules> {
  const out = new Map<string, PropertyRules>();
  for (const m of getMetadataStorage().getTargetValidationMetadatas(dto, '', true, false)) {
    let rules = out.get(m.propertyName);
    if (!rules) out.set(m.propertyName, (rules = { value: {}, items: {}, optional: false }));
    if (m.type === 'conditionalValidation') rules.optional = true;
    const keywords = keywordsOf(m, dto.name);
    if (keywords) merge(m.each ? rules.items : rules.value, keywords, `${dto.name}.${m.propertyName}`);
  }
  return out;
}

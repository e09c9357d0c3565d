import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import {
  buildMessage,
  IsString,
  Matches,
  ValidateBy,
  ValidateIf,
  ValidationError,
  ValidationOptions,
} from 'class-validator';
import { GUID_PATTERN, GUID_SOURCE } from './guid';
import { type FieldErrorCode, RequestRefusal } from '@app/problems';

/**
 * THE way a DTO says a field may be left out (house style: optional means "may be absent"). An absent field
 * is not validated; `null` is validated like any other value, so it is refused by the field's type check,
 * unless the field is declared `nullable` (then `null` is a value of its own, e.g. "no e-mail address").
 * class-validator's `@IsOptional()` lets `null` through on every field, and services that treat anything
 * but `undefined` as given then write it (a null would clear a column nobody asked to change): do not use it in DTOs.
 *
 * Also marks the OpenAPI property as not required (and nullable when declared), so the document says the
 * same as the validation. Update DTOs derive from Create DTOs with
 * `PartialType(CreateX, { skipNullProperties: false })`, which adds the same "may be absent" rule.
 */
export function Optional(options: { nullable?: boolean } & ValidationOptions = {}): PropertyDecorator {
  const { nullable = false, ...validationOptions } = options;
  return applyDecorators(
    ValidateIf(
      nullable
        ? (_object: object, value: unknown) => value !== undefined && value !== null
        : (_object: object, value: unknown) => value !== undefined,
      validationOptions,
    ),
    ApiProperty({ required: false, ...(nullable ? { nullable: true } : {}) }),
  );
}

// C0 controls, DEL and C1 controls (tab, CR, LF, NUL and ESC included), as a character-class range.
const CONTROL = '\\u0000-\\u001f\\u007f-\\u009f';
/** Text with no control character at all (a JSON Schema `pattern` too: no flags). */
export const NO_CONTROL_CHARACTERS = new RegExp(`^[^${CONTROL}]*$`);
/**
 * A name: no control character, and something besides white space. One pattern (a lookahead for the "something"),
 * so the document states it as one `pattern`, and linear on any input.
 */
export const NAME_PATTERN = new RegExp(`^(?=[^${CONTROL}]*[^\\s${CONTROL}])[^${CONTROL}]*$`);

/**
 * Characters a reader does not see: Unicode's Default_Ignorable_Code_Point (soft hyphen, zero-width space and
 * joiners, variation selectors, tags, Hangul fillers…), which includes every Bidi_Control (the direction marks and
 * embeddings that reorder what is shown). Written as ranges without flags, so the document's JSON Schema pattern
 * says exactly what is enforced; `validation.spec.ts` checks them against both Unicode properties, code point by
 * code point.
 */
const INVISIBLE =
  '[\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufff8]' +
  '|\\ud82f[\\udca0-\\udca3]|\\ud834[\\udd73-\\udd7a]|[\\udb40-\\udb43][\\udc00-\\udfff]';
// No `u` flag, on purpose (a JSON Schema pattern has none): characters past U+FFFF are matched as their surrogate
// pairs, a high-surrogate class then a low-surrogate class, which is what the rule below takes for a mistake.
// eslint-disable-next-line no-misleading-character-class
export const INVISIBLE_CHARACTER = new RegExp(INVISIBLE);
/** A user, role or tenant name: NAME_PATTERN, and no invisible character (INVISIBLE_CHARACTER). */
export const IDENTITY_NAME_PATTERN = new RegExp(
  // eslint-disable-next-line no-misleading-character-class -- surrogate pairs, as above
  `^(?![\\s\\S]*(?:${INVISIBLE}))(?=[^${CONTROL}]*[^\\s${CONTROL}])[^${CONTROL}]*$`,
);

/**
 * A validation rule with its OpenAPI form (validation-schema.ts reads it): the document states what the rule
 * enforces, from the rule itself. `schema` holds JSON Schema keywords of the value (of each item with `each`).
 */
export function ValidateWithSchema(
  name: string,
  schema: Record<string, unknown>,
  validate: (value: unknown) => boolean,
  message: string,
  options: ValidationOptions = {},
): PropertyDecorator {
  RULE_SCHEMAS.set(name, schema);
  return ValidateBy(
    {
      name,
      constraints: [schema],
      validator: { validate, defaultMessage: buildMessage((each) => `${each}${message}`, options) },
    },
    options,
  );
}

/** The OpenAPI form of each rule made by ValidateWithSchema, by rule name. */
export const RULE_SCHEMAS = new Map<string, Record<string, unknown>>();

/** Characters as JSON Schema counts them (code points), not UTF-16 units nor validator.js's count. */
function characters(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 === text.length) n++;
    else {
      const d = text.charCodeAt(i + 1);
      n++;
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

/**
 * A string of `min`..`max` characters, counted as JSON Schema's minLength/maxLength count them (code points):
 * class-validator's MinLength/MaxLength count differently (variation selectors not at all), so the document and
 * the rule would disagree at the bounds.
 */
export function CharacterCount(min: number, max: number, options: ValidationOptions = {}): PropertyDecorator {
  return ValidateWithSchema(
    `characterCount:${min}:${max}`,
    { type: 'string', ...(min > 0 ? { minLength: min } : {}), maxLength: max },
    (value) => typeof value === 'string' && characters(value) >= min && characters(value) <= max,
    `$property must be a text of ${min} to ${max} characters`,
    options,
  );
}

/** A GUID: 8-4-4-4-12 hexadecimal digits, any version, either case (the path parameters' rule). */
export function IsGuid(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateWithSchema(
    'isGuid',
    { type: 'string', format: 'uuid', pattern: GUID_SOURCE },
    (value) => typeof value === 'string' && GUID_PATTERN.test(value),
    '$property must be a GUID',
    options,
  );
}

/**
 * An e-mail address: a dot-atom local part (RFC 5322, no quoted form), then a host name whose last label is
 * letters. What JSON Schema's `email` format accepts, narrowed by this `pattern`, which is the whole rule.
 */
export const EMAIL_PATTERN =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export function IsEmailAddress(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateWithSchema(
    'isEmailAddress',
    { type: 'string', format: 'email', pattern: EMAIL_PATTERN.source },
    (value) => typeof value === 'string' && EMAIL_PATTERN.test(value),
    '$property must be an e-mail address',
    options,
  );
}

/** An RFC 3339 instant with its offset (`2026-01-31T13:45:00Z`, `…+01:00`), seconds 00–59. */
const INSTANT_PATTERN =
  /^[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])$/;

/** An instant as JSON Schema's `date-time` states it (and this pattern), on a day the calendar has. */
export function IsInstant(options: ValidationOptions = {}): PropertyDecorator {
  return ValidateWithSchema(
    'isInstant',
    { type: 'string', format: 'date-time', pattern: INSTANT_PATTERN.source },
    (value) => typeof value === 'string' && INSTANT_PATTERN.test(value) && realDay(value),
    '$property must be an ISO 8601 date and time with an offset, e.g. 2026-01-31T13:45:00Z',
    options,
  );
}

function realDay(text: string): boolean {
  const [year, month, day] = text.slice(0, 10).split('-').map(Number);
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate() && !Number.isNaN(Date.parse(text));
}

/**
 * Names and identifiers (user, role, tenant, model, workflow, status, rule, API key names and descriptions,
 * the user name of a sign-in): no control character of any kind (they hide in logs and screens). Free text that is data (an
 * Invoke payload, a notification body) may hold tabs and newlines; U+0000 and lone surrogates are refused
 * everywhere, before validation (see request-input.ts).
 */
export function NoControlCharacters(options: ValidationOptions = {}): PropertyDecorator {
  return Matches(NO_CONTROL_CHARACTERS, {
    message: '$property must not contain control characters',
    ...options,
  });
}

/**
 * A name (of a user, role, tenant, model, workflow, status, rule or API key): a string of at most
 * `maxLength` characters with something besides white space (names are stored trimmed), and no control
 * character.
 */
export function IsName(maxLength = 256): PropertyDecorator {
  return applyDecorators(
    IsString(),
    CharacterCount(1, maxLength),
    Matches(NAME_PATTERN, {
      message: '$property must hold something besides white space, and no control character',
    }),
    ApiProperty({ type: String }),
  );
}

/**
 * The name of a user, role or tenant: IsName, and no invisible character (a zero-width space, a soft hyphen, a
 * direction mark), so what an administrator reads in a trail is the whole name. Look-alike letters are told
 * apart by comparing skeletons where names are unique (users: nameSkeletonKey).
 */
export function IsIdentityName(maxLength = 256): PropertyDecorator {
  return applyDecorators(
    IsString(),
    CharacterCount(1, maxLength),
    Matches(IDENTITY_NAME_PATTERN, {
      message:
        '$property must hold something besides white space, and no control or invisible character (zero-width, soft hyphen, direction marks)',
    }),
    ApiProperty({ type: String }),
  );
}

/** One entry of a validation problem's `errors`. */
export interface FieldError {
  /** The field's path in the request: `name`, `statuses[2].name`. */
  field: string;
  message: string;
  code: FieldErrorCode;
}

/** class-validator's rules by the code they answer; any other rule: invalid_value. */
const CONSTRAINT_CODES: Readonly<Record<string, FieldErrorCode>> = {
  whitelistValidation: 'unknown_member',
  isDefined: 'missing',
  isNotEmpty: 'missing',
  isIn: 'not_in_enum',
  isEnum: 'not_in_enum',
  min: 'out_of_range',
  max: 'out_of_range',
  minLength: 'out_of_range',
  maxLength: 'out_of_range',
  arrayMinSize: 'out_of_range',
  arrayMaxSize: 'out_of_range',
};

/** The code of a refused field: its first failed rule's (the same order as its messages). */
function constraintCode(constraints: Record<string, string>): FieldErrorCode {
  const first = Object.keys(constraints)[0];
  return (first !== undefined ? CONSTRAINT_CODES[first] : undefined) ?? 'invalid_value';
}

/**
 * class-validator's ValidationError tree as a flat list naming each refused field once, by its path
 * (`property`, nested `parent.child`, array items `list[2].name`). The message keeps class-validator's
 * wording (each failed rule, joined by "; "), with the path in place of the bare property name it starts with.
 */
export function fieldErrors(errors: readonly ValidationError[], parentPath = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const error of errors) {
    const path = parentPath
      ? /^\d+$/.test(error.property)
        ? `${parentPath}[${error.property}]`
        : `${parentPath}.${error.property}`
      : error.property;
    const messages = Object.values(error.constraints ?? {}).map((message) =>
      path !== error.property && message.startsWith(`${error.property} `)
        ? `${path}${message.slice(error.property.length)}`
        : message,
    );
    if (messages.length)
      out.push({ field: path, message: messages.join('; '), code: constraintCode(error.constraints ?? {}) });
    if (error.children?.length) out.push(...fieldErrors(error.children, path));
  }
  return out;
}

/** The global ValidationPipe's exceptionFactory: a 400 validation problem naming every refused field. */
export function validationProblem(errors: ValidationError[]): RequestRefusal {
  const list = fieldErrors(errors);
  return new RequestRefusal(list.map((e) => e.message).join('; '), list);
}

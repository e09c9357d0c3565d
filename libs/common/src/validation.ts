import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import {
  IsString,
  Matches,
  MaxLength,
  ValidateIf,
  ValidationError,
  ValidationOptions,
} from 'class-validator';
import { RequestRefusal } from './problem';

/**
 * THE way a DTO says a field may be left out (house style: optional means "may be absent"). An absent field
 * is not validated; `null` is validated like any other value, so it is refused by the field's type check,
 * unless the field is declared `nullable` (then `null` is a value of its own, e.g. "no e-mail address").
 * class-validator's `@IsOptional()` lets `null` through on every field, and services that treat anything
 * but `undefined` as given then write it (issue 14): do not use it in DTOs.
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

// C0 controls, DEL and C1 controls (tab, CR, LF, NUL and ESC included).
// eslint-disable-next-line no-control-regex
const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f]*$/;

/**
 * Names and identifiers (user, role, tenant, model, workflow, status, rule, API key names and descriptions,
 * the user name of a sign-in): no control character of any kind (issue 14). Free text that is data (an
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
    MaxLength(maxLength),
    Matches(/\S/, { message: '$property must not be empty' }),
    NoControlCharacters(),
    ApiProperty({ type: String, minLength: 1, maxLength }),
  );
}

/** One entry of a validation problem's `errors`. */
export interface FieldError {
  /** The field's path in the request: `name`, `statuses[2].name`. */
  field: string;
  message: string;
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
    if (messages.length) out.push({ field: path, message: messages.join('; ') });
    if (error.children?.length) out.push(...fieldErrors(error.children, path));
  }
  return out;
}

/** The global ValidationPipe's exceptionFactory: a 400 validation problem naming every refused field. */
export function validationProblem(errors: ValidationError[]): RequestRefusal {
  const list = fieldErrors(errors);
  return new RequestRefusal(list.map((e) => e.message).join('; '), list);
}

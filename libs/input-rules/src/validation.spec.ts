import 'reflect-metadata';
import { ValidationPipe } from '@nestjs/common';
import { ApiProperty, DECORATORS, PartialType } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, MaxLength, ValidateNested } from 'class-validator';
import { ParseGuidPipe } from './guid';
import { ProblemException } from '@app/problems';
import {
  CharacterCount,
  fieldErrors,
  IDENTITY_NAME_PATTERN,
  INVISIBLE_CHARACTER,
  IsName,
  NAME_PATTERN,
  Optional,
  validationProblem,
} from './validation';
import { validationRulesOf } from './validation-schema';

class CreateThingDto {
  @IsName(16)
  name!: string;

  @ApiProperty({ type: String, maxLength: 20 })
  @Optional({ nullable: true })
  @CharacterCount(0, 20)
  note?: string | null;

  @ApiProperty()
  @Optional()
  @IsInt()
  size?: number;
}
class UpdateThingDto extends PartialType(CreateThingDto, { skipNullProperties: false }) {}

class StatusDto {
  @IsName()
  name!: string;
}
class WorkflowDto {
  @IsName()
  name!: string;

  @ApiProperty({ type: [StatusDto] })
  @IsArray()
  @ArrayMaxSize(5)
  @ValidateNested({ each: true })
  @Type(() => StatusDto)
  statuses!: StatusDto[];
}

const pipe = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  exceptionFactory: validationProblem,
});

/** The fields named by the validation problem, or [] when the body is accepted. */
async function refused(dto: new () => object, body: unknown): Promise<string[]> {
  try {
    await pipe.transform(body, { type: 'body', metatype: dto });
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ProblemException);
    const problem = (err as ProblemException).toProblem();
    expect(problem).toMatchObject({ status: 400, type: 'urn:problem-type:validation' });
    return (problem.errors as { field: string }[]).map((e) => e.field);
  }
}

describe('Optional: may be absent; null only where declared nullable', () => {
  it('an absent optional field is not validated; null is refused unless the field is nullable', async () => {
    expect(await refused(CreateThingDto, { name: 'a' })).toEqual([]);
    expect(await refused(CreateThingDto, { name: 'a', size: null })).toEqual(['size']);
    expect(await refused(CreateThingDto, { name: 'a', note: null })).toEqual([]);
    expect(await refused(CreateThingDto, { name: 'a', note: 'x'.repeat(21) })).toEqual(['note']);
  });

  it('marks the OpenAPI property not required, and nullable only when declared', () => {
    const property = (dto: object, key: string) =>
      Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, dto, key) as Record<string, unknown>;
    expect(property(CreateThingDto.prototype, 'size')).toMatchObject({ required: false });
    expect(property(CreateThingDto.prototype, 'size').nullable).toBeUndefined();
    expect(property(CreateThingDto.prototype, 'note')).toMatchObject({
      required: false,
      nullable: true,
      maxLength: 20,
    });
    expect(property(CreateThingDto.prototype, 'name').required).toBeUndefined(); // required by default
  });
});

describe('an Update DTO from PartialType(Create, { skipNullProperties: false })', () => {
  it('keeps the validation: every field may be absent, null is refused where Create refuses it, the rules stay', async () => {
    expect(await refused(UpdateThingDto, {})).toEqual([]);
    expect(await refused(UpdateThingDto, { name: null })).toEqual(['name']);
    expect(await refused(UpdateThingDto, { size: null })).toEqual(['size']);
    expect(await refused(UpdateThingDto, { note: null })).toEqual([]);
    expect(await refused(UpdateThingDto, { name: 'x'.repeat(17) })).toEqual(['name']);
    expect(await refused(UpdateThingDto, { name: ' ' })).toEqual(['name']);
    expect(await refused(UpdateThingDto, { name: 'a\tb' })).toEqual(['name']);
    expect(await refused(UpdateThingDto, { colour: 'red' })).toEqual(['colour']);
  });

  it('keeps the OpenAPI metadata, every property not required, and the rules the document states', () => {
    const property = (key: string) =>
      Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, UpdateThingDto.prototype, key) as Record<
        string,
        unknown
      >;
    expect(property('name')).toMatchObject({ required: false });
    expect(property('note')).toMatchObject({ required: false, nullable: true, maxLength: 20 });
    expect(property('size')).toMatchObject({ required: false });
    // What the document states of each property comes from the validation itself (validation-schema.ts).
    const rules = validationRulesOf(UpdateThingDto);
    expect(rules.get('name')).toEqual({
      value: { type: 'string', minLength: 1, maxLength: 16, pattern: NAME_PATTERN.source },
      items: {},
      optional: true,
    });
    expect(rules.get('size')).toEqual({ value: { type: 'integer' }, items: {}, optional: true });
    expect(validationRulesOf(CreateThingDto).get('name')?.optional).toBe(false);
    // class-validator's MaxLength counts characters its own way (validator.js): the document cannot state it
    class Counted {
      @MaxLength(3)
      text!: string;
    }
    expect(() => validationRulesOf(Counted)).toThrow(
      'Counted.text: the validation rule maxLength has no OpenAPI form',
    );
  });

  it('counts characters as JSON Schema does: code points, variation selectors included', async () => {
    class Short {
      @CharacterCount(1, 2)
      text!: string;
    }
    expect(await refused(Short, { text: '😀😀' })).toEqual([]);
    expect(await refused(Short, { text: '😀😀😀' })).toEqual(['text']);
    expect(await refused(Short, { text: 'a\uFE0F\uFE0F' })).toEqual(['text']);
    expect(await refused(Short, { text: '\uFE0F' })).toEqual([]);
  });

  it('plain PartialType would let null through again (why skipNullProperties: false)', async () => {
    class Lenient extends PartialType(CreateThingDto) {}
    expect(await refused(Lenient, { name: null })).toEqual([]);
  });
});

describe('validation problems name each field by its path', () => {
  it('nested members and array items: statuses[2].name', async () => {
    const fields = await refused(WorkflowDto, {
      name: 'W',
      statuses: [{ name: 'a' }, { name: 'b' }, { name: 7 }, { name: 'd', extra: 1 }],
    });
    expect(fields).toEqual(['statuses[2].name', 'statuses[3].extra']);
  });

  it('each field once, its failed rules joined, the path in the message, the first rule’s code', () => {
    const errors = fieldErrors([
      {
        property: 'statuses',
        value: [],
        children: [
          {
            property: '0',
            children: [
              {
                property: 'name',
                constraints: { isString: 'name must be a string', maxLength: 'name is too long' },
              },
            ],
          },
        ],
      },
      { property: 'colour', constraints: { whitelistValidation: 'property colour should not exist' } },
    ]);
    expect(errors).toEqual([
      {
        field: 'statuses[0].name',
        message: 'statuses[0].name must be a string; statuses[0].name is too long',
        code: 'invalid_value',
      },
      { field: 'colour', message: 'property colour should not exist', code: 'unknown_member' },
    ]);
  });
});

describe('ParseGuidPipe', () => {
  const metadata = { type: 'param' as const, data: 'ruleGuid' };
  it('answers the GUID in lower case and refuses anything else, naming the parameter', () => {
    expect(new ParseGuidPipe().transform('5E1EC7ED-0000-4000-8000-00000000DE70', metadata)).toBe(
      '5e1ec7ed-0000-4000-8000-00000000de70',
    );
    for (const bad of [
      '',
      'null',
      '5e1ec7ed-0000-4000-8000-00000000de7',
      ['5e1ec7ed-0000-4000-8000-00000000de70'],
      undefined,
    ])
      expect(() => new ParseGuidPipe().transform(bad, metadata)).toThrow(
        expect.objectContaining({
          extensions: { errors: [{ field: 'ruleGuid', message: 'ruleGuid must be a GUID.' }] },
        }),
      );
  });
  it('as an optional query parameter lets absence through, nothing else', () => {
    expect(
      new ParseGuidPipe(true).transform(undefined, { type: 'query', data: 'caseWorkflowGuid' }),
    ).toBeUndefined();
    expect(() => new ParseGuidPipe(true).transform('', { type: 'query', data: 'caseWorkflowGuid' })).toThrow(
      ProblemException,
    );
  });
});

describe('identity names refuse invisible characters (Unicode Default_Ignorable_Code_Point and Bidi_Control)', () => {
  it('the ranges are exactly those two Unicode properties, every code point checked', () => {
    const unicode = /[\p{Default_Ignorable_Code_Point}\p{Bidi_Control}]/u;
    const differ: string[] = [];
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const ch = String.fromCodePoint(cp);
      if (unicode.test(ch) !== INVISIBLE_CHARACTER.test(ch)) differ.push(cp.toString(16));
    }
    expect(differ).toEqual([]);
  });

  it.each([
    'Administrator\u200b',
    'Administrator\u00ad',
    'Admin\u202eistrator',
    '\u2066Administrator',
    'A\u{e0041}dmin',
  ])('%j is refused; without it the name passes', (name) => {
    expect(IDENTITY_NAME_PATTERN.test(name)).toBe(false);
    expect(NAME_PATTERN.test(name)).toBe(true);
  });

  it.each(['Administrator', 'Zoë Ñúñez', '山田 太郎', 'Admınistrator', 'Ops team (EU)'])(
    '%j passes',
    (name) => {
      expect(IDENTITY_NAME_PATTERN.test(name)).toBe(true);
    },
  );
});

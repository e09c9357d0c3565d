import { ProblemException } from '@app/problems';
import { validateDefinition, type GridDefinition, type GridFilter } from './grid-definition';
import { DEFAULT_TAKE, parseGridQuery } from './grid-query';
import { ARCHIVER_WARNING_GRID, CASE_CREATION_WARNING_GRID } from './grids/telemetry-grids';

const def: GridDefinition = {
  name: 'Test',
  table: 'GridTest',
  idColumn: 'Id',
  timeColumn: 'CreatedDate',
  columns: [
    { name: 'id', column: 'Id', kind: 'number' },
    { name: 'stageId', column: 'StageId', kind: 'number' },
    { name: 'value', column: 'Value', kind: 'number' },
    { name: 'createdDate', column: 'CreatedDate', kind: 'date' },
  ],
  filters: [
    { param: 'stageId', column: 'StageId', type: 'integer', min: 1, max: 4 },
    { param: 'entityAnalysisModelGuid', column: 'ModelGuid', type: 'guid' },
  ],
  searchColumns: ['Name'],
  statistics: ['value'],
  sortable: true,
};
const NOW = Date.parse('2026-11-22T12:00:00Z');
const parse = (q: Record<string, unknown>) => parseGridQuery(def, q, NOW);
const problem = (q: Record<string, unknown>) => {
  try {
    parse(q);
  } catch (e) {
    if (e instanceof ProblemException)
      return e.toProblem() as unknown as { status: number; errors: { field: string; code: string }[] };
    throw e;
  }
  throw new Error('expected a 400 problem');
};

describe('grid query parameters', () => {
  it('defaults: the last hour, take 100, newest first, no sample', () => {
    const q = parse({});
    expect(q.to.getTime()).toBe(NOW);
    expect(q.from.getTime()).toBe(NOW - 3_600_000);
    expect(q).toMatchObject({
      take: DEFAULT_TAKE,
      sort: null,
      samplePercentage: null,
      search: null,
      filters: [],
      fromDefaulted: true,
    });
  });

  it('from and to default independently', () => {
    expect(parse({ from: '2026-11-22T11:30:00Z' }).to.getTime()).toBe(NOW);
    expect(parse({ to: '2026-11-22T12:30:00+01:00' }).from.getTime()).toBe(NOW - 3_600_000);
  });

  it.each([
    '2026-11-22T10:00:00Z',
    '2026-11-22T10:00:00.123456Z',
    '2026-11-22T11:00:00+01:00',
    '2026-11-22T05:00:00-0500',
    // No offset: UTC.
    '2026-11-22T10:00:00',
    '2026-11-22T10:00',
    // A + left unencoded in the query string arrives as a space.
    '2026-11-22T11:00:00 01:00',
    '2026-11-22T11:00:00 0100',
  ])('accepts the instant %s', (v) =>
    expect(parse({ from: v, to: '2026-11-22T12:00:00Z' }).from.getTime()).toBe(
      Date.parse('2026-11-22T10:00:00Z') + (v.includes('.123') ? 123 : 0),
    ),
  );

  it.each([
    ['2026-02-30T00:00:00Z', 'from'],
    ['2026-13-01T00:00:00Z', 'from'],
    ['2026-11-22T24:00:00Z', 'from'],
    ['2026-11-22', 'from'],
    ['2026-11-22T10:00:00  01:00', 'from'],
    ['2026-11-22T10:00:00 1:00', 'from'],
    ['2026-11-22 10:00:00', 'from'],
    ['yesterday', 'from'],
    ["2026-11-22T10:00:00Z' OR '1'='1", 'from'],
  ])('refuses from=%p naming %s', (v, field) => {
    const p = problem({ from: v });
    expect(p.status).toBe(400);
    expect(p.errors[0].field).toBe(field);
  });

  it('accepts every instant SQL Server stores and refuses the ones beyond, naming the parameter', () => {
    const edges = { from: '0001-01-01T00:00:00Z', to: '9999-12-31T23:59:59.999Z' };
    expect(parse(edges).from.toISOString()).toBe('0001-01-01T00:00:00.000Z');
    expect(parse(edges).to.toISOString()).toBe('9999-12-31T23:59:59.999Z');
    const range = /0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z/;
    for (const [query, field, why] of [
      // year 0000 is no instant of the pattern (the document says so too)
      [{ from: '0000-12-31T23:59:59.999Z', to: edges.to }, 'from', /ISO 8601/],
      [{ from: '0001-01-01T00:59:59+01:00', to: edges.to }, 'from', range],
      [{ from: edges.from, to: '9999-12-31T23:00:00-01:00' }, 'to', range],
      [{ from: edges.from, to: '9999-12-31T23:59:59.9999Z' }, null, null],
    ] as const) {
      if (field === null) expect(parse(query).to.toISOString()).toBe('9999-12-31T23:59:59.999Z');
      else {
        const p = problem(query);
        expect([query, p.status, p.errors[0].field]).toEqual([query, 400, field]);
        expect(JSON.stringify(p)).toMatch(why);
      }
    }
  });

  it('an inverted window with one side defaulted is a 422 naming the parameter the caller sent', () => {
    const onlyTo = problem({ to: '2026-11-22T09:00:00Z' });
    expect(onlyTo.status).toBe(422);
    expect(onlyTo.errors).toEqual([expect.objectContaining({ field: 'to', code: 'conflicting_parameters' })]);
    expect(JSON.stringify(onlyTo)).toMatch(/give from as well/);
    expect(problem({ from: '2026-11-22T13:00:00Z' }).errors[0].field).toBe('from');
  });

  it('from after to: each valid alone, together a 422 naming both (conflicting_parameters)', () => {
    const p = problem({ from: '2026-11-22T11:00:00Z', to: '2026-11-22T10:00:00Z' });
    expect(p.status).toBe(422);
    expect(p.errors).toEqual([
      expect.objectContaining({ field: 'from', code: 'conflicting_parameters' }),
      expect.objectContaining({ field: 'to', code: 'conflicting_parameters' }),
    ]);
  });

  it.each([
    ['-1', 1],
    ['0', 1],
    ['1', 1],
    // spec: Limits — take clamped to 100000 (the literal, not the code's constant).
    ['1e9', 100_000],
    ['99999', 99_999],
    ['100000', 100_000],
    ['100001', 100_000],
    ['200000', 100_000],
    [' 42 ', 42],
  ])('clamps take=%p to %d', (v, expected) => expect(parse({ take: v }).take).toBe(expected));

  it.each(['10abc', '1.5', 'NaN', 'Infinity', '', '0x10'])(
    'refuses take=%p or treats empty as default',
    (v) => {
      if (v === '') expect(parse({ take: v }).take).toBe(DEFAULT_TAKE);
      else expect(problem({ take: v }).errors[0].field).toBe('take');
    },
  );

  it('refuses a repeated parameter', () => {
    expect(problem({ take: ['1', '2'] }).errors[0].field).toBe('take');
    expect(problem({ from: ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z'] }).errors[0].field).toBe('from');
  });

  it.each([
    ['50', 50],
    ['-0', 0],
    ['-5', 0],
    ['100.0000001', 100],
    ['0.5', 0.5],
    ['1e1', 10],
  ])('clamps samplePercentage=%p to %d', (v, expected) =>
    expect(parse({ samplePercentage: v }).samplePercentage).toBe(expected),
  );

  it.each(['NaN', 'Infinity', '-Infinity', '50%', 'ten', '1e400'])('refuses samplePercentage=%p', (v) => {
    expect(problem({ samplePercentage: v }).errors[0].field).toBe('samplePercentage');
  });

  it('sortField is matched case-insensitively to a shown column; anything else is newest first', () => {
    expect(parse({ sortField: 'VALUE', sortDirection: 'AsC' }).sort).toEqual({
      column: 'Value',
      direction: 'ASC',
    });
    expect(parse({ sortField: 'value', sortDirection: 'up' }).sort).toEqual({
      column: 'Value',
      direction: 'DESC',
    });
    for (const hostile of ['name;DROP TABLE x', '__proto__', 'constructor', 'Value DESC', '"Value"']) {
      expect(parse({ sortField: hostile }).sort).toBeNull();
    }
  });

  it('every column a warning grid shows is sortable: stageName by its stage id', () => {
    for (const grid of [ARCHIVER_WARNING_GRID, CASE_CREATION_WARNING_GRID]) {
      expect(parseGridQuery(grid, { sortField: 'stageName', sortDirection: 'asc' }, NOW).sort).toEqual({
        column: 'StageId',
        direction: 'ASC',
      });
      expect(parseGridQuery(grid, { sortField: 'StageName' }, NOW).sort).toEqual({
        column: 'StageId',
        direction: 'DESC',
      });
    }
  });

  it('ignores sort on a grid that is not sortable', () => {
    expect(parseGridQuery({ ...def, sortable: false }, { sortField: 'value' }, NOW).sort).toBeNull();
  });

  it('range-checks integer filters and GUIDs', () => {
    expect(parse({ stageId: '4' }).filters).toEqual([{ column: 'StageId', value: 4 }]);
    for (const v of ['0', '5', '1.5', 'x', '-1'])
      expect(problem({ stageId: v }).errors[0].field).toBe('stageId');
    expect(problem({ entityAnalysisModelGuid: 'not-a-guid' }).errors[0].field).toBe(
      'entityAnalysisModelGuid',
    );
    expect(parse({ entityAnalysisModelGuid: 'AAAAAAAA-AAAA-4AAA-8AAA-AAAAAAAAAAAA' }).filters).toEqual([
      { column: 'ModelGuid', value: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' },
    ]);
  });

  it('a flag-without-codes filter: true or false in any letter case, the codes from the declaration only', () => {
    const audit: GridDefinition = {
      ...def,
      filters: [
        {
          param: 'refused',
          column: 'Failed',
          type: 'flagExcept',
          codeColumn: 'FailureTypeId',
          except: [4, 13],
          description: 'refusals',
        },
      ],
    };
    const refused = (v: string) => parseGridQuery(audit, { refused: v, except: '5' }, NOW).filters;
    const filter = { column: 'Failed', codeColumn: 'FailureTypeId', except: [4, 13] };
    expect(refused(' TRUE ')).toEqual([{ ...filter, value: true }]);
    expect(refused('false')).toEqual([{ ...filter, value: false }]);
    expect(refused('')).toEqual([]);
    for (const v of ['1', 'yes', '4,13']) {
      try {
        parseGridQuery(audit, { refused: v }, NOW);
        throw new Error(`refused=${v} was accepted`);
      } catch (e) {
        expect(e).toBeInstanceOf(ProblemException);
        expect((e as ProblemException).toProblem()).toMatchObject({
          status: 400,
          errors: [{ field: 'refused' }],
        });
      }
    }
    expect(() =>
      validateDefinition({ ...audit, filters: [{ ...audit.filters[0], except: [] }] as GridFilter[] }),
    ).toThrow(/refused needs a non-empty list/);
    expect(() =>
      validateDefinition({
        ...audit,
        filters: [{ ...audit.filters[0], codeColumn: 'FailureTypeId; DROP' }] as GridFilter[],
      }),
    ).toThrow(/not a plain identifier/);
  });

  it('keeps search text as data, bounded', () => {
    expect(parse({ search: "' OR '1'='1" }).search).toBe("' OR '1'='1");
    expect(problem({ search: 'x'.repeat(257) }).errors[0].field).toBe('search');
  });

  it('sampleSeed must be a non-negative 31-bit integer', () => {
    expect(parse({ samplePercentage: '10', sampleSeed: '42' }).sampleSeed).toBe(42);
    expect(problem({ sampleSeed: '-1' }).errors[0].field).toBe('sampleSeed');
    expect(problem({ sampleSeed: '2147483648' }).errors[0].field).toBe('sampleSeed');
  });
});

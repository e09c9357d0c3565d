import { ProblemException } from '@app/problems';
import { checkDeclaredQuery, declaredQueries, type QuerySchema } from './query-parameters';

const declared = new Map<string, QuerySchema>([
  ['limit', { type: 'integer', minimum: 1, maximum: 1000 }],
  ['format', { type: 'string', enum: ['csv'] }],
  ['trace', { type: 'string', enum: ['true', 'false'] }],
  ['failed', { type: 'boolean' }],
  ['search', { type: 'string', minLength: 1, maxLength: 3 }],
  ['guid', { type: 'string', pattern: '^[0-9a-f]{8}$' }],
]);

/** The query string as Express's simple parser reads it. */
function check(raw: string): void {
  checkDeclaredQuery(declared, Object.fromEntries(new URLSearchParams(raw)), raw);
}

function refusal(raw: string): { status: number; field: string; code: string } {
  try {
    check(raw);
  } catch (e) {
    if (!(e instanceof ProblemException)) throw e;
    const p = e.toProblem() as unknown as { status: number; errors: { field: string; code: string }[] };
    return { status: p.status, field: p.errors[0].field, code: p.errors[0].code };
  }
  throw new Error(`${raw} was accepted`);
}

describe('strict query parameters (checkDeclaredQuery)', () => {
  it('takes what the document declares, in its types and bounds', () => {
    for (const raw of [
      '',
      'limit=1',
      'limit=1000&format=csv',
      'trace=false&failed=true',
      'search=abc',
      'guid=0a1b2c3d',
    ])
      expect(() => check(raw)).not.toThrow();
  });

  it.each([
    ['limt=5', 'limt', 'unknown_parameter'],
    ['limit=', 'limit', 'empty_value'],
    ['limit', 'limit', 'empty_value'],
    ['limit=5&limit=6', 'limit', 'repeated_parameter'],
    ['format=xml', 'format', 'not_in_enum'],
    ['trace=yes', 'trace', 'not_in_enum'],
    ['trace=TRUE', 'trace', 'not_in_enum'],
    ['failed=FALSE', 'failed', 'not_in_enum'],
    ['limit=0', 'limit', 'out_of_range'],
    ['limit=1001', 'limit', 'out_of_range'],
    ['search=abcd', 'search', 'out_of_range'],
    ['limit=ten', 'limit', 'invalid_value'],
    ['limit=1.5', 'limit', 'invalid_value'],
    ['limit=0x10', 'limit', 'invalid_value'],
    ['guid=nope', 'guid', 'invalid_value'],
  ])('%s: a 400 naming %s, code %s', (raw, field, code) => {
    expect(refusal(raw)).toEqual({ status: 400, field, code });
  });

  it('reads each operation’s query parameters from the document by operationId', () => {
    const doc = {
      paths: {
        '/api/A': {
          get: {
            operationId: 'listA',
            parameters: [
              { in: 'query', name: 'limit', schema: { type: 'integer' } },
              { in: 'path', name: 'guid', schema: { type: 'string' } },
            ],
          },
          post: { operationId: 'createA' },
        },
      },
    };
    const queries = declaredQueries(doc);
    expect([...(queries.get('listA')?.keys() ?? [])]).toEqual(['limit']);
    expect(queries.get('createA')?.size).toBe(0);
  });
});

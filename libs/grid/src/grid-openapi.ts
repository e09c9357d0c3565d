import { LARGE_READ_ROWS } from './large-reads';
import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiOkResponse,
  ApiProperty,
  ApiPropertyOptional,
  ApiQuery,
  getSchemaPath,
} from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { ApiProblemResponses } from '@app/problems';
import { GUID_SOURCE } from '@app/input-rules';
import { HASHED_ETAG_HEADER } from '@app/http-edge';
import type { ColumnKind, GridDefinition } from './grid-definition';
import { DEFAULT_TAKE, INSTANT_SOURCE, MAX_SEARCH_LENGTH, MAX_TAKE } from './grid-query';
import { SAMPLE_SEED_MAX } from './sampling';
import { HISTOGRAM_BUCKETS } from './statistics';

export class HistogramBucketDto {
  @ApiProperty() lowerBound!: number;
  @ApiProperty() upperBound!: number;
  @ApiProperty({ type: 'integer', minimum: 0 }) count!: number;
}

/** Statistics of one column over the full filtered set (capped at 100 000 rows). */
export class ColumnStatisticsDto {
  @ApiProperty({ type: 'integer', minimum: 0, description: 'Values the statistics are computed over' })
  count!: number;
  @ApiProperty({ type: Number, nullable: true }) min!: number | null;
  @ApiProperty({ type: Number, nullable: true }) max!: number | null;
  @ApiProperty({ type: Number, nullable: true }) mean!: number | null;
  @ApiProperty({ type: Number, nullable: true }) median!: number | null;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Sample standard deviation (n − 1); 0 for one value',
  })
  standardDeviation!: number | null;
  @ApiProperty({
    type: [HistogramBucketDto],
    minItems: HISTOGRAM_BUCKETS,
    maxItems: HISTOGRAM_BUCKETS,
    description: `Always ${HISTOGRAM_BUCKETS} equal-width buckets from min to max (every value equal: all in the last); without values, ${HISTOGRAM_BUCKETS} buckets from 0 to 0 counting 0`,
  })
  histogram!: HistogramBucketDto[];
}

/**
 * The next page of a grid's rows: its parameters, to send with the others unchanged. Inline (an object or
 * null), so a generated client types it `{ beforeTime, beforeId } | null` with no reference to resolve.
 */
const GRID_NEXT_SCHEMA: SchemaObject = {
  type: 'object',
  nullable: true,
  required: ['beforeTime', 'beforeId'],
  properties: {
    beforeTime: { type: 'string', pattern: INSTANT_SOURCE, example: '2026-01-31T12:44:59.123Z' },
    beforeId: { type: 'integer', minimum: 0 },
  },
  additionalProperties: false,
};

export class GridSampleDto {
  @ApiProperty({ minimum: 0, maximum: 100 }) percentage!: number;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: SAMPLE_SEED_MAX, description: 'Repeats this sample' })
  seed!: number;
}

function kindSchema(kind: ColumnKind): SchemaObject {
  switch (kind) {
    case 'number':
      return { type: 'integer' };
    case 'date':
      return { type: 'string', format: 'date-time' };
    case 'guid':
      return { type: 'string', format: 'uuid' };
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return { type: 'string' };
  }
}

/** A class of the given name (the OpenAPI schema takes the class's name). */
function namedClass(name: string): Type<unknown> {
  const cls = class {};
  Object.defineProperty(cls, 'name', { value: name });
  return cls;
}

interface GridModels {
  row: Type<unknown>;
  statistics: Type<unknown>;
  response: Type<unknown>;
}

const models = new Map<string, GridModels>();

/**
 * The DTO classes of a grid's answer, made from its declaration (so the document cannot drift from what the
 * engine answers): `<Grid>Row` (each column, then the members `decorate` adds), `<Grid>Statistics` (one
 * ColumnStatistics per statistics column) and `<Grid>Grid` ({ rows, total, statistics, sample? }).
 */
export function gridModels(def: GridDefinition): GridModels {
  const known = models.get(def.name);
  if (known) return known;
  const row = namedClass(`${def.name}Row`);
  for (const c of def.columns)
    ApiProperty({ ...kindSchema(c.kind), ...(c.nullable ? { nullable: true } : {}) } as never)(
      row.prototype as object,
      c.name,
    );
  for (const d of def.derived ?? [])
    ApiProperty({
      ...kindSchema(d.kind),
      ...(d.nullable ? { nullable: true } : {}),
      ...(d.description ? { description: d.description } : {}),
    } as never)(row.prototype as object, d.name);
  const statistics = namedClass(`${def.name}Statistics`);
  for (const name of def.statistics)
    ApiProperty({ type: ColumnStatisticsDto })(statistics.prototype as object, name);
  const response = namedClass(`${def.name}Grid`);
  ApiProperty({ type: [row], description: 'The matching rows, respecting take' })(
    response.prototype as object,
    'rows',
  );
  ApiProperty({ type: 'integer', minimum: 0, description: 'The full filtered count regardless of take' })(
    response.prototype as object,
    'total',
  );
  ApiProperty({
    type: statistics,
    description: def.statistics.length
      ? `For each statistics column (${def.statistics.join(', ')}), over the full filtered set capped at 100 000 rows`
      : 'This grid has no statistics columns: always {}',
  })(response.prototype as object, 'statistics');
  ApiPropertyOptional({ type: GridSampleDto, description: 'Present when the request sampled' })(
    response.prototype as object,
    'sample',
  );
  ApiProperty({
    ...(GRID_NEXT_SCHEMA as object),
    // `required` above lists the object's own members: the member itself is required all the same.
    selfRequired: true,
    description:
      'The next page of rows (newest first only): send its beforeTime and beforeId with the other parameters unchanged (a sample: with sampleSeed). Null: no more rows, or another order (a sortField other than the time column descending). The page after a full one may be empty',
  })(response.prototype as object, 'next');
  const made = { row, statistics, response };
  models.set(def.name, made);
  return made;
}

/** The time column's name as the spec spells it. */
const timeName = (def: GridDefinition) =>
  def.timeColumn === 'OccurredDate' ? 'OccurredDate' : 'CreatedDate';

/** What selects a grid's window: from, to, its filters and search (the same for the grid and its series). */
export function windowQueries(def: GridDefinition) {
  const time = timeName(def);
  return [
    ApiQuery({
      name: 'from',
      required: false,
      schema: { type: 'string', pattern: INSTANT_SOURCE, example: '2026-01-31T12:45:00Z' },
      description: `Lower bound on ${time} (ISO 8601; no offset: UTC; a real instant from 0001 to 9999). Default: one hour before now, whatever to is`,
    }),
    ApiQuery({
      name: 'to',
      required: false,
      schema: { type: 'string', pattern: INSTANT_SOURCE, example: '2026-01-31T13:45:00Z' },
      description: `Upper bound on ${time} (ISO 8601; no offset: UTC; a real instant from 0001 to 9999). Default: now, whatever from is. Before from (given or defaulted): a 422 (conflicting_parameters)`,
    }),
    ...filterQueries(def),
    ApiProblemResponses({
      422: 'Parameters valid alone contradict each other (urn:problem-type:unprocessable, code conflicting_parameters): to before from; beforeId without beforeTime',
    }),
    ...(def.searchColumns.length
      ? [
          ApiQuery({
            name: 'search',
            required: false,
            schema: { type: 'string', maxLength: MAX_SEARCH_LENGTH },
            description: `Case-insensitive substring of ${def.searchColumns.join(' or ')}`,
          }),
        ]
      : []),
  ];
}

/** The grid's filters (the same for the grid and its series). */
function filterQueries(def: GridDefinition) {
  return def.filters.map((f) =>
    ApiQuery({
      name: f.param,
      required: false,
      schema:
        f.type === 'integer'
          ? { type: 'integer', minimum: f.min, maximum: f.max }
          : f.type === 'guid'
            ? { type: 'string', format: 'uuid', pattern: GUID_SOURCE }
            : { type: 'boolean' },
      description: f.type === 'integer' || f.type === 'guid' ? 'Exact match' : f.description,
    }),
  );
}

/** "Older rows": the optional keyset bound of the rows (never of total or statistics). */
function pagingQueries(time: string) {
  return [
    ApiQuery({
      name: 'beforeTime',
      required: false,
      schema: { type: 'string', pattern: INSTANT_SOURCE, example: '2026-01-31T12:45:00.123Z' },
      description: `Rows only: those before a row in the newest-first order, earlier than this ${time} (ISO 8601; no offset: UTC), or at it with an id below beforeId. Give the last row's ${time} and id to page through a window that holds more than take while rows arrive; total and statistics stay the window's. Absent: the spec's grid`,
    }),
    ApiQuery({
      name: 'beforeId',
      required: false,
      schema: { type: 'integer', minimum: 0 },
      description:
        'With beforeTime: the id of the last row shown (rows at that time with a lower id follow it). Without beforeTime: 422 naming both (conflicting_parameters)',
    }),
  ];
}

/**
 * Documents a grid route from its declaration: every query parameter the engine reads (typed, with its
 * range), and its answer; `csv`: also the CSV export (`format=csv` or `Accept: text/csv`).
 */
export function ApiGrid(def: GridDefinition, options: { csv?: boolean } = {}) {
  const { row, statistics, response } = gridModels(def);
  const queries = [
    ...windowQueries(def),
    ApiQuery({
      name: 'take',
      required: false,
      schema: { type: 'integer', default: DEFAULT_TAKE },
      description: `Rows to answer: any whole number, clamped to 1..${MAX_TAKE} (spec: clamped to at most ${MAX_TAKE}). More than ${LARGE_READ_ROWS}: a large read, streamed (no Content-Length), which waits for one of the node's GridLargeReadConcurrency turns and is answered 503 with Retry-After when none comes in time`,
    }),
    ...pagingQueries(timeName(def)),
    ApiQuery({
      name: 'samplePercentage',
      required: false,
      schema: { type: 'number' },
      description:
        'Draws one consistent sample of the rows (for unbiased baselines): any number, clamped to 0..100 (spec)',
    }),
    ApiQuery({
      name: 'sampleSeed',
      required: false,
      schema: { type: 'integer', minimum: 0, maximum: SAMPLE_SEED_MAX },
      description: 'Repeats a sample (answered in sample.seed)',
    }),
    ...(def.sortable
      ? [
          ApiQuery({
            name: 'sortField',
            required: false,
            schema: { type: 'string', example: def.columns[0]?.name },
            description: `A column of the grid, any letter case: ${[...def.columns.map((c) => c.name), ...Object.keys(def.sortDerived ?? {})].join(', ')}. Anything else or omitted: most recent first (spec). A column other than ${def.columns.find((c) => c.column === def.timeColumn)?.name ?? 'the time column'} sorts a window of at most GridUnindexedSortMaxRows rows (10 000 by default): a larger one is a 400 naming sortField`,
          }),
          ApiQuery({
            name: 'sortDirection',
            required: false,
            schema: { type: 'string', example: 'asc' },
            description: 'asc (any letter case): ascending; anything else or omitted: descending (spec)',
          }),
        ]
      : []),
    ...(options.csv
      ? [
          ApiQuery({
            name: 'format',
            required: false,
            schema: { type: 'string', enum: ['csv'] },
            description: 'csv: a CSV download of every matching row (as Accept: text/csv)',
          }),
        ]
      : []),
  ];
  return applyDecorators(
    ApiExtraModels(row, statistics, response, ColumnStatisticsDto, HistogramBucketDto, GridSampleDto),
    ...queries,
    ApiOkResponse({
      headers: {
        Link: {
          description:
            'A whole (not streamed) answer with a next page: <this request with next’s beforeTime and beforeId>; rel="next" (RFC 8288)',
          schema: { type: 'string' },
        },
        ETag: {
          ...HASHED_ETAG_HEADER,
          description: `${HASHED_ETAG_HEADER.description}. JSON answers of at most ${LARGE_READ_ROWS} rows only: a large read is streamed without one, and the CSV export has none`,
        },
      },
      description: options.csv
        ? '{ rows, total, statistics, next }, or the CSV export'
        : '{ rows, total, statistics, next }',
      content: {
        'application/json': { schema: { $ref: getSchemaPath(response) } },
        ...(options.csv
          ? {
              'text/csv': { schema: { type: 'string', description: 'A header line, then one line per row' } },
            }
          : {}),
      },
    }),
  );
}

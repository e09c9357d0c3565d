import { applyDecorators } from '@nestjs/common';
import { ApiOkResponse, ApiProperty, ApiQuery } from '@nestjs/swagger';
import type { GridDefinition } from './grid-definition';
import { windowQueries } from './grid-openapi';
import { DEFAULT_SERIES_BUCKETS, MAX_SERIES_BUCKETS } from './grid-series';

export class SeriesPointDto {
  @ApiProperty({ format: 'date-time', description: "The bucket's start (UTC)" }) time!: string;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Rows in the bucket' }) count!: number;
  @ApiProperty({ description: "The measure's smallest value in the bucket" }) min!: number;
  @ApiProperty({ description: "The measure's largest value in the bucket" }) max!: number;
  @ApiProperty({ description: "The measure's sum over the bucket's rows" }) sum!: number;
}

export class SeriesLineDto {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'stageId or queueId of the line; null for a grid with one line',
  })
  key!: number | null;
  @ApiProperty({ description: 'The StageName or QueueName (or the measure, for one line)' }) name!: string;
  @ApiProperty({ type: [SeriesPointDto], description: 'The buckets that hold rows, oldest first' })
  points!: SeriesPointDto[];
}

export class GridSeriesDto {
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time' }) to!: string;
  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: 'Width of each bucket; buckets start at whole multiples of it since 1970-01-01T00:00:00Z',
  })
  bucketMilliseconds!: number;
  @ApiProperty({ description: 'The row member the points measure' }) measure!: string;
  @ApiProperty({ type: [SeriesLineDto] }) series!: SeriesLineDto[];
}

/** Documents GET /api/<Grid>/Series from the grid's declaration: its window's parameters and `buckets`. */
export function ApiGridSeries(def: GridDefinition) {
  return applyDecorators(
    ...windowQueries(def),
    ApiQuery({
      name: 'buckets',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_SERIES_BUCKETS, default: DEFAULT_SERIES_BUCKETS },
      description:
        'About how many time buckets the window is cut into (a round width is chosen: 1 s, 1 min, 15 min, 1 h, …)',
    }),
    ...(def.series?.also?.length
      ? [
          ApiQuery({
            name: 'measure',
            required: false,
            schema: {
              type: 'string',
              enum: [def.series.measure, ...def.series.also],
              default: def.series.measure,
            },
            description: 'The row member each bucket measures (count, min, max, sum)',
          }),
        ]
      : []),
    ApiOkResponse({
      type: GridSeriesDto,
      description: `${def.series?.measure ?? ''} per time bucket over the whole filtered window (count, min, max, sum), one line per ${def.series?.by ? 'stage or queue' : 'grid'}`,
    }),
  );
}

import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '@app/access';
import { DatabaseSizeGauges } from './database-size-gauges';
import { EVENT_LOOP_WINDOW_MS, EventLoopDelay, type EventLoopWindow } from './event-loop-delay';

const ms = (description: string) => ({ type: Number, nullable: true, description });

/**
 * The last completed window's event loop delay, in milliseconds beyond the sampling timer's interval; every
 * member null in the first seconds after start, before a window has ended.
 */
export class EventLoopDelayDto {
  @ApiProperty({ type: String, nullable: true, description: 'When the window ended (ISO 8601, UTC).' })
  endedAt!: string | null;
  @ApiProperty({ description: 'Length of a window in seconds.' }) windowSeconds!: number;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Samples taken in the window (one per 10 ms while the loop is free).',
  })
  samples!: number | null;
  @ApiProperty(ms('nodejs.eventloop.delay.min')) minMilliseconds!: number | null;
  @ApiProperty(ms('nodejs.eventloop.delay.mean')) meanMilliseconds!: number | null;
  @ApiProperty(ms('nodejs.eventloop.delay.p50')) p50Milliseconds!: number | null;
  @ApiProperty(ms('nodejs.eventloop.delay.p90')) p90Milliseconds!: number | null;
  @ApiProperty(ms('nodejs.eventloop.delay.p99')) p99Milliseconds!: number | null;
  @ApiProperty(ms('nodejs.eventloop.delay.max: the longest a due callback waited in the window.'))
  maxMilliseconds!: number | null;
}

export class TableSizeDto {
  @ApiProperty() table!: string;
  @ApiProperty({
    type: Number,
    nullable: true,
    description: "The database's estimate (its statistics), not a count.",
  })
  rows!: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'With its indexes; null on SQLite.' })
  bytes!: number | null;
}

export class DatabaseSizeDto {
  @ApiProperty({ type: String, nullable: true, description: 'When the sizes were read (once a minute).' })
  readAt!: string | null;
  @ApiProperty({ type: Number, nullable: true, description: 'The whole database, in bytes.' })
  bytes!: number | null;
  @ApiProperty({ type: [TableSizeDto] }) tables!: TableSizeDto[];
}

export class RuntimeDto {
  @ApiProperty({ type: EventLoopDelayDto }) eventLoopDelay!: EventLoopDelayDto;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The longest event loop delay of the windows that ended in the last minute, in ms.',
  })
  eventLoopDelayWorstOfLastMinuteMilliseconds!: number | null;

  @ApiProperty({ description: 'EventLoopDelayWarnMilliseconds: a longer delay is said at warn.' })
  eventLoopDelayWarnMilliseconds!: number;

  @ApiProperty({
    type: DatabaseSizeDto,
    description: 'service.database.* (no tables before the first reading)',
  })
  database!: DatabaseSizeDto;
}

const round = (v: number) => Math.round(v * 100) / 100;

function windowDto(w: EventLoopWindow | null): EventLoopDelayDto {
  const of = (v: number | undefined) => (v === undefined ? null : round(v));
  return {
    endedAt: w ? new Date(w.endedAt).toISOString() : null,
    windowSeconds: EVENT_LOOP_WINDOW_MS / 1000,
    samples: w?.samples ?? null,
    minMilliseconds: of(w?.min),
    meanMilliseconds: of(w?.mean),
    p50Milliseconds: of(w?.p50),
    p90Milliseconds: of(w?.p90),
    p99Milliseconds: of(w?.p99),
    maxMilliseconds: of(w?.max),
  };
}

function databaseDto(r: ReturnType<DatabaseSizeGauges['lastReading']>): DatabaseSizeDto {
  return r
    ? { readAt: new Date(r.readAt).toISOString(), bytes: r.bytes, tables: r.tables.map((t) => ({ ...t })) }
    : { readAt: null, bytes: null, tables: [] };
}

/** How this node's runtime is doing now (the console's home page); the same figures as the metric export. */
@ApiTags('Operations')
@Controller('api/Runtime')
export class RuntimeController {
  constructor(
    private readonly eventLoop: EventLoopDelay,
    private readonly sizes: DatabaseSizeGauges,
  ) {}

  @Get()
  @Authenticated({ landlordOnly: true })
  @ApiOkResponse({ type: RuntimeDto })
  @ApiOperation({
    operationId: 'getRuntime',
    summary: "This node's event loop delay, and the database's sizes",
  })
  runtime(): RuntimeDto {
    const worst = this.eventLoop.worstOfLastMinute();
    return {
      eventLoopDelay: windowDto(this.eventLoop.lastWindow()),
      eventLoopDelayWorstOfLastMinuteMilliseconds: worst === null ? null : round(worst),
      eventLoopDelayWarnMilliseconds: this.eventLoop.warnMilliseconds,
      database: databaseDto(this.sizes.lastReading()),
    };
  }
}

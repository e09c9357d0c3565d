import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '@app/common';
import { EVENT_LOOP_WINDOW_MS, EventLoopDelay } from './event-loop-delay';

/** One window's event loop delay, in milliseconds beyond the sampling timer's interval. */
export class EventLoopDelayDto {
  @ApiProperty({ description: 'When the window ended (ISO 8601, UTC).' }) endedAt!: string;
  @ApiProperty({ description: 'Length of the window in seconds.' }) windowSeconds!: number;
  @ApiProperty({ description: 'Samples taken in the window (one per 10 ms while the loop is free).' })
  samples!: number;
  @ApiProperty() minMilliseconds!: number;
  @ApiProperty() meanMilliseconds!: number;
  @ApiProperty() p50Milliseconds!: number;
  @ApiProperty() p90Milliseconds!: number;
  @ApiProperty() p99Milliseconds!: number;
  @ApiProperty({ description: 'The longest a due callback waited in the window.' }) maxMilliseconds!: number;
}

export class RuntimeDto {
  @ApiProperty({
    type: EventLoopDelayDto,
    nullable: true,
    description:
      'The last completed window (null in the first seconds after start): nodejs.eventloop.delay.*',
  })
  eventLoopDelay!: EventLoopDelayDto | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'The longest event loop delay of the windows that ended in the last minute, in ms.',
  })
  eventLoopDelayWorstOfLastMinuteMilliseconds!: number | null;

  @ApiProperty({ description: 'EventLoopDelayWarnMilliseconds: a longer delay is said at warn.' })
  eventLoopDelayWarnMilliseconds!: number;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/** How this node's runtime is doing now (the console's home page); the same figures as the metric export. */
@ApiTags('Operations')
@Controller('api/Runtime')
export class RuntimeController {
  constructor(private readonly eventLoop: EventLoopDelay) {}

  @Get()
  @Authenticated({ landlordOnly: true })
  @ApiOkResponse({ type: RuntimeDto })
  @ApiOperation({
    operationId: 'getRuntime',
    summary: "This node's event loop delay (the last window and the last minute)",
  })
  runtime(): RuntimeDto {
    const w = this.eventLoop.lastWindow();
    const worst = this.eventLoop.worstOfLastMinute();
    return {
      eventLoopDelay: w && {
        endedAt: new Date(w.endedAt).toISOString(),
        windowSeconds: EVENT_LOOP_WINDOW_MS / 1000,
        samples: w.samples,
        minMilliseconds: round(w.min),
        meanMilliseconds: round(w.mean),
        p50Milliseconds: round(w.p50),
        p90Milliseconds: round(w.p90),
        p99Milliseconds: round(w.p99),
        maxMilliseconds: round(w.max),
      },
      eventLoopDelayWorstOfLastMinuteMilliseconds: worst === null ? null : round(worst),
      eventLoopDelayWarnMilliseconds: this.eventLoop.warnMilliseconds,
    };
  }
}

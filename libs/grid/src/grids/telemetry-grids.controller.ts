import { GRID } from '@app/declarations';
import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Authenticated } from '@app/common';
import type { GridResponse } from '../grid-engine';
import { GridService } from '../grid.service';
import type { GridAnswer } from '../grid-reads';
import { sendChunked } from './chunked-answer';
import { ApiGrid } from '../grid-openapi';
import {
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
} from './telemetry-grids';

/** A grid's query string as Express parses it; the grid service validates it. */
export type RawQuery = Record<string, unknown>;

/** A grid answer: returned whole (Nest writes it), or streamed here (a large read). */
export async function answer(res: Response, pending: Promise<GridAnswer>): Promise<GridResponse | undefined> {
  const a = await pending;
  if ('response' in a) return a.response;
  await sendChunked(res, a.stream, () => res.status(200).type('application/json; charset=utf-8'));
  return undefined;
}

/** spec: Telemetry grids — read-only, landlord tenant only (any other caller: 403). */
@ApiTags('Telemetry grids')
@Controller('api')
export class TelemetryGridsController {
  constructor(private readonly grids: GridService) {}

  @Get(GRID.ArchiverStagePerformanceCounter)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getArchiverStagePerformanceCounters',
    summary: 'Archiver stage rollups (one row per stage per Model per minute)',
  })
  @ApiGrid(ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID)
  archiverStagePerformanceCounter(
    @Query() q: RawQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return answer(res, this.grids.read(ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID, q));
  }

  @Get(GRID.ArchiverWarning)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getArchiverWarnings',
    summary: 'Archiver stages slower than ArchiverWarnThresholdMilliseconds',
  })
  @ApiGrid(ARCHIVER_WARNING_GRID)
  archiverWarning(
    @Query() q: RawQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return answer(res, this.grids.read(ARCHIVER_WARNING_GRID, q));
  }

  @Get(GRID.CaseCreationStagePerformanceCounter)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getCaseCreationStagePerformanceCounters',
    summary: 'Case creation stage rollups (one row per stage per minute)',
  })
  @ApiGrid(CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID)
  caseCreationStagePerformanceCounter(
    @Query() q: RawQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return answer(res, this.grids.read(CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID, q));
  }

  @Get(GRID.CaseCreationWarning)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getCaseCreationWarnings',
    summary: 'Case creation stages slower than CaseCreationWarnThresholdMilliseconds',
  })
  @ApiGrid(CASE_CREATION_WARNING_GRID)
  caseCreationWarning(
    @Query() q: RawQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return answer(res, this.grids.read(CASE_CREATION_WARNING_GRID, q));
  }

  @Get(GRID.ModelInvokeWarning)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getModelInvokeWarnings',
    summary: 'Invoke trace points over the warn threshold of their Model',
  })
  @ApiGrid(MODEL_INVOKE_WARNING_GRID)
  modelInvokeWarning(
    @Query() q: RawQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return answer(res, this.grids.read(MODEL_INVOKE_WARNING_GRID, q));
  }

  @Get(GRID.CaptureQueueHealth)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getCaptureQueueHealth',
    summary: 'Depth and drops of the six capture queues, per minute',
  })
  @ApiGrid(CAPTURE_QUEUE_HEALTH_GRID)
  captureQueueHealth(
    @Query() q: RawQuery,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return answer(res, this.grids.read(CAPTURE_QUEUE_HEALTH_GRID, q));
  }
}

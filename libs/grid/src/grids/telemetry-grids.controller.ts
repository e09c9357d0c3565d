import { GRID } from '@app/declarations';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Authenticated } from '@app/access';
import type { GridResponse } from '../grid-engine';
import { GridService } from '../grid.service';
import { ApiGrid } from '../grid-openapi';
import { serve, type RawQuery } from './grid-answers';
import {
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
} from './telemetry-grids';

/** spec: Telemetry grids — read-only, landlord tenant only (any other caller: 403); CSV like every grid. */
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
  @ApiGrid(ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID, { csv: true })
  archiverStagePerformanceCounter(
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return serve(this.grids, ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID, q, req, res);
  }

  @Get(GRID.ArchiverWarning)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getArchiverWarnings',
    summary: 'Archiver stages slower than ArchiverWarnThresholdMilliseconds',
  })
  @ApiGrid(ARCHIVER_WARNING_GRID, { csv: true })
  archiverWarning(
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return serve(this.grids, ARCHIVER_WARNING_GRID, q, req, res);
  }

  @Get(GRID.CaseCreationStagePerformanceCounter)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getCaseCreationStagePerformanceCounters',
    summary: 'Case creation stage rollups (one row per stage per minute)',
  })
  @ApiGrid(CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID, { csv: true })
  caseCreationStagePerformanceCounter(
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return serve(this.grids, CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID, q, req, res);
  }

  @Get(GRID.CaseCreationWarning)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getCaseCreationWarnings',
    summary: 'Case creation stages slower than CaseCreationWarnThresholdMilliseconds',
  })
  @ApiGrid(CASE_CREATION_WARNING_GRID, { csv: true })
  caseCreationWarning(
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return serve(this.grids, CASE_CREATION_WARNING_GRID, q, req, res);
  }

  @Get(GRID.ModelInvokeWarning)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getModelInvokeWarnings',
    summary: 'Invoke trace points over the warn threshold of their Model',
  })
  @ApiGrid(MODEL_INVOKE_WARNING_GRID, { csv: true })
  modelInvokeWarning(
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return serve(this.grids, MODEL_INVOKE_WARNING_GRID, q, req, res);
  }

  @Get(GRID.CaptureQueueHealth)
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getCaptureQueueHealth',
    summary: 'Depth and drops of the six capture queues, per minute',
  })
  @ApiGrid(CAPTURE_QUEUE_HEALTH_GRID, { csv: true })
  captureQueueHealth(
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<GridResponse | undefined> {
    return serve(this.grids, CAPTURE_QUEUE_HEALTH_GRID, q, req, res);
  }
}

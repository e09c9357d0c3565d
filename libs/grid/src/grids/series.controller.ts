import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Authenticated } from '@app/access';
import type { GridDefinition } from '../grid-definition';
import type { SeriesResponse } from '../grid-series';
import { ApiGridSeries } from '../grid-series-openapi';
import { GridService } from '../grid.service';
import {
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
} from './telemetry-grids';

type RawQuery = Record<string, unknown>;
const summary = (def: GridDefinition) =>
  `${def.series!.measure} of ${def.name} per time bucket over the whole window`;

/**
 * The time series of each telemetry grid (an extension: the grid answers themselves keep the spec's rows,
 * total and statistics), for a chart of the whole window rather than of the rows shown. Landlord only, like
 * the grids.
 */
@ApiTags('Telemetry grids')
@Controller('api')
export class TelemetrySeriesController {
  constructor(private readonly grids: GridService) {}

  @Get('ArchiverStagePerformanceCounter/Series')
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getArchiverStagePerformanceCounterSeries',
    summary: summary(ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID),
  })
  @ApiGridSeries(ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID)
  archiverStagePerformanceCounter(@Query() q: RawQuery): Promise<SeriesResponse> {
    return this.grids.series(ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID, q);
  }

  @Get('ArchiverWarning/Series')
  @Authenticated({ landlordOnly: true })
  @ApiOperation({ operationId: 'getArchiverWarningSeries', summary: summary(ARCHIVER_WARNING_GRID) })
  @ApiGridSeries(ARCHIVER_WARNING_GRID)
  archiverWarning(@Query() q: RawQuery): Promise<SeriesResponse> {
    return this.grids.series(ARCHIVER_WARNING_GRID, q);
  }

  @Get('CaseCreationStagePerformanceCounter/Series')
  @Authenticated({ landlordOnly: true })
  @ApiOperation({
    operationId: 'getCaseCreationStagePerformanceCounterSeries',
    summary: summary(CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID),
  })
  @ApiGridSeries(CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID)
  caseCreationStagePerformanceCounter(@Query() q: RawQuery): Promise<SeriesResponse> {
    return this.grids.series(CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID, q);
  }

  @Get('CaseCreationWarning/Series')
  @Authenticated({ landlordOnly: true })
  @ApiOperation({ operationId: 'getCaseCreationWarningSeries', summary: summary(CASE_CREATION_WARNING_GRID) })
  @ApiGridSeries(CASE_CREATION_WARNING_GRID)
  caseCreationWarning(@Query() q: RawQuery): Promise<SeriesResponse> {
    return this.grids.series(CASE_CREATION_WARNING_GRID, q);
  }

  @Get('ModelInvokeWarning/Series')
  @Authenticated({ landlordOnly: true })
  @ApiOperation({ operationId: 'getModelInvokeWarningSeries', summary: summary(MODEL_INVOKE_WARNING_GRID) })
  @ApiGridSeries(MODEL_INVOKE_WARNING_GRID)
  modelInvokeWarning(@Query() q: RawQuery): Promise<SeriesResponse> {
    return this.grids.series(MODEL_INVOKE_WARNING_GRID, q);
  }

  @Get('CaptureQueueHealth/Series')
  @Authenticated({ landlordOnly: true })
  @ApiOperation({ operationId: 'getCaptureQueueHealthSeries', summary: summary(CAPTURE_QUEUE_HEALTH_GRID) })
  @ApiGridSeries(CAPTURE_QUEUE_HEALTH_GRID)
  captureQueueHealth(@Query() q: RawQuery): Promise<SeriesResponse> {
    return this.grids.series(CAPTURE_QUEUE_HEALTH_GRID, q);
  }
}

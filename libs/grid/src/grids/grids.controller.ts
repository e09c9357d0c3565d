import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Actor, Authenticated, CurrentActor, Permission } from '@app/common';
import type { GridDefinition } from '../grid-definition';
import type { GridResponse, GridScope } from '../grid-engine';
import { GridService, wantsCsv } from '../grid.service';
import { USER_LOGIN_GRID, USER_LOGOUT_GRID } from './audit-grids';
import {
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
} from './telemetry-grids';

type RawQuery = Record<string, unknown>;

const TELEMETRY_QUERY = [
  ApiQuery({
    name: 'from',
    required: false,
    description: 'ISO 8601 instant with offset; default one hour ago',
  }),
  ApiQuery({ name: 'to', required: false, description: 'ISO 8601 instant with offset; default now' }),
  ApiQuery({
    name: 'take',
    required: false,
    description: 'Rows to return, clamped to 1..100000; default 100',
  }),
  ApiQuery({
    name: 'samplePercentage',
    required: false,
    description: '0..100, clamped: one consistent sample',
  }),
  ApiQuery({ name: 'sampleSeed', required: false, description: 'Repeats a sample (echoed in the answer)' }),
];
const apply =
  (decorators: MethodDecorator[]): MethodDecorator =>
  (t, k, d) => {
    for (const dec of decorators) dec(t, k, d);
  };

/** spec: Telemetry grids — read-only, landlord tenant only (any other caller: 403). */
@ApiTags('Telemetry grids')
@Controller('api')
export class TelemetryGridsController {
  constructor(private readonly grids: GridService) {}

  @Get('ArchiverStagePerformanceCounter')
  @Authenticated({ landlordOnly: true })
  @apply(TELEMETRY_QUERY)
  @ApiOkResponse({ description: '{ rows, total, statistics }' })
  archiverStagePerformanceCounter(@Query() q: RawQuery): Promise<GridResponse> {
    return this.grids.query(ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID, q);
  }

  @Get('ArchiverWarning')
  @Authenticated({ landlordOnly: true })
  @apply(TELEMETRY_QUERY)
  archiverWarning(@Query() q: RawQuery): Promise<GridResponse> {
    return this.grids.query(ARCHIVER_WARNING_GRID, q);
  }

  @Get('CaseCreationStagePerformanceCounter')
  @Authenticated({ landlordOnly: true })
  @apply(TELEMETRY_QUERY)
  caseCreationStagePerformanceCounter(@Query() q: RawQuery): Promise<GridResponse> {
    return this.grids.query(CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID, q);
  }

  @Get('CaseCreationWarning')
  @Authenticated({ landlordOnly: true })
  @apply(TELEMETRY_QUERY)
  caseCreationWarning(@Query() q: RawQuery): Promise<GridResponse> {
    return this.grids.query(CASE_CREATION_WARNING_GRID, q);
  }

  @Get('ModelInvokeWarning')
  @Authenticated({ landlordOnly: true })
  @apply(TELEMETRY_QUERY)
  modelInvokeWarning(@Query() q: RawQuery): Promise<GridResponse> {
    return this.grids.query(MODEL_INVOKE_WARNING_GRID, q);
  }

  @Get('CaptureQueueHealth')
  @Authenticated({ landlordOnly: true })
  @apply(TELEMETRY_QUERY)
  captureQueueHealth(@Query() q: RawQuery): Promise<GridResponse> {
    return this.grids.query(CAPTURE_QUEUE_HEALTH_GRID, q);
  }
}

/**
 * spec: Audit grids — permission Read Security Audit. A tenant administrator sees only their tenant's rows
 * (so failed attempts against unknown user names, which have no tenant, only reach the landlord).
 */
@ApiTags('Audit grids')
@Controller('api')
export class AuditGridsController {
  constructor(private readonly grids: GridService) {}

  @Get('UserLogin')
  @Authenticated({ permission: Permission.ReadSecurityAudit })
  @apply(TELEMETRY_QUERY)
  @ApiQuery({ name: 'format', required: false, description: 'csv for a CSV download (or Accept: text/csv)' })
  userLogin(
    @CurrentActor() actor: Actor,
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.serve(USER_LOGIN_GRID, actor, q, req, res);
  }

  @Get('UserLogout')
  @Authenticated({ permission: Permission.ReadSecurityAudit })
  @apply(TELEMETRY_QUERY)
  @ApiQuery({ name: 'format', required: false, description: 'csv for a CSV download (or Accept: text/csv)' })
  userLogout(
    @CurrentActor() actor: Actor,
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.serve(USER_LOGOUT_GRID, actor, q, req, res);
  }

  private async serve(
    def: GridDefinition,
    actor: Actor,
    q: RawQuery,
    req: Request,
    res: Response,
  ): Promise<GridResponse | undefined> {
    const scope: GridScope = actor.landlord ? [] : [{ column: 'TenantRegistryId', value: actor.tenantId }];
    const { format: _format, ...query } = q;
    if (wantsCsv(q, req.headers.accept)) {
      const csv = this.grids.csv(def, query, scope);
      const chunks = csv.chunks();
      // Nothing is sent before the first batch was read: a refusal until then is still a problem answer.
      const first = await chunks.next();
      res.status(200).type('text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${csv.filename}"`);
      if (!first.done) res.write(first.value);
      for await (const chunk of chunks)
        if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
      res.end();
      return undefined;
    }
    return this.grids.query(def, query, scope);
  }
}

import { GRID } from '@app/declarations';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Actor, Authenticated, CurrentActor, Permission } from '@app/common';
import type { GridDefinition } from '../grid-definition';
import type { GridResponse, GridScope } from '../grid-engine';
import { GridService, wantsCsv } from '../grid.service';
import type { GridAnswer } from '../grid-reads';
import { sendChunked } from './chunked-answer';
import { ApiGrid } from '../grid-openapi';
import { ADMIN_EVENT_GRID, USER_LOGIN_GRID, USER_LOGOUT_GRID } from './audit-grids';
import {
  ARCHIVER_STAGE_PERFORMANCE_COUNTER_GRID,
  ARCHIVER_WARNING_GRID,
  CAPTURE_QUEUE_HEALTH_GRID,
  CASE_CREATION_STAGE_PERFORMANCE_COUNTER_GRID,
  CASE_CREATION_WARNING_GRID,
  MODEL_INVOKE_WARNING_GRID,
} from './telemetry-grids';

type RawQuery = Record<string, unknown>;

/** A grid answer: returned whole (Nest writes it), or streamed here (a large read). */
async function answer(res: Response, pending: Promise<GridAnswer>): Promise<GridResponse | undefined> {
  const a = await pending;
  if ('response' in a) return a.response;
  await sendChunked(res, a.stream, () => res.status(200).type('application/json; charset=utf-8'));
  return undefined;
}

/**
 * A grid's answer, or its CSV export when asked (`format=csv`, or an Accept that prefers text/csv): the
 * page's columns, streamed in chunks, named by the grid and its window.
 */
async function serve(
  grids: GridService,
  def: GridDefinition,
  q: RawQuery,
  req: Request,
  res: Response,
  scope: GridScope = [],
): Promise<GridResponse | undefined> {
  const { format: _format, ...query } = q;
  if (wantsCsv(q, req.headers.accept)) {
    const csv = await grids.csv(def, query, scope);
    await sendChunked(res, csv, () => {
      res.status(200).type('text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${csv.filename}"`);
    });
    return undefined;
  }
  return answer(res, grids.read(def, query, scope));
}

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

/**
 * spec: Audit grids — permission Read Security Audit. A tenant administrator sees only their tenant's rows
 * (so failed attempts against unknown user names, which have no tenant, only reach the landlord).
 */
@ApiTags('Audit grids')
@Controller('api')
export class AuditGridsController {
  constructor(private readonly grids: GridService) {}

  @Get(GRID.UserLogin)
  @Authenticated({ permission: Permission.ReadSecurityAudit })
  @ApiOperation({ operationId: 'getUserLogins', summary: 'Sign-in audit trail (every attempt)' })
  @ApiGrid(USER_LOGIN_GRID, { csv: true })
  userLogin(
    @CurrentActor() actor: Actor,
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.serve(USER_LOGIN_GRID, actor, q, req, res);
  }

  @Get(GRID.UserLogout)
  @Authenticated({ permission: Permission.ReadSecurityAudit })
  @ApiOperation({ operationId: 'getUserLogouts', summary: 'Logout audit trail (every cut session)' })
  @ApiGrid(USER_LOGOUT_GRID, { csv: true })
  userLogout(
    @CurrentActor() actor: Actor,
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.serve(USER_LOGOUT_GRID, actor, q, req, res);
  }

  @Get('AdminEvent')
  @Authenticated({ permission: Permission.ReadSecurityAudit })
  @ApiOperation({
    operationId: 'getAdminEvents',
    summary:
      "Administrators' audit trail: every accepted administrative write with its changes, and the refused ones (scoped by the target's tenant)",
  })
  @ApiGrid(ADMIN_EVENT_GRID, { csv: true })
  adminEvent(
    @CurrentActor() actor: Actor,
    @Query() q: RawQuery,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ) {
    return this.serve(ADMIN_EVENT_GRID, actor, q, req, res);
  }

  private serve(
    def: GridDefinition,
    actor: Actor,
    q: RawQuery,
    req: Request,
    res: Response,
  ): Promise<GridResponse | undefined> {
    const scope: GridScope = actor.landlord ? [] : [{ column: 'TenantRegistryId', value: actor.tenantId }];
    return serve(this.grids, def, q, req, res, scope);
  }
}

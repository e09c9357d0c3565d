import { GRID } from '@app/declarations';
import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Actor, Authenticated, CurrentActor, Permission } from '@app/access';
import type { GridDefinition } from '../grid-definition';
import type { GridResponse, GridScope } from '../grid-engine';
import { GridService } from '../grid.service';
import { ApiGrid } from '../grid-openapi';
import { ADMIN_EVENT_GRID, USER_LOGIN_GRID, USER_LOGOUT_GRID } from './audit-grids';
import { serve, type RawQuery } from './grid-answers';

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

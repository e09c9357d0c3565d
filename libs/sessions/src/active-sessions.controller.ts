import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, Authenticated, CurrentActor, Permission } from '@app/access';
import { ActiveSessions } from './active-sessions';
import { ActiveSessionsDto } from './dto/sessions.dto';

@ApiTags('UserRegistry')
@Controller('api/ActiveSessions')
export class ActiveSessionsController {
  constructor(private readonly sessions: ActiveSessions) {}

  /** The console's home page: the users signed in, of the caller's tenant (the landlord: every tenant). */
  @Get()
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOkResponse({ type: ActiveSessionsDto })
  @ApiOperation({
    operationId: 'getActiveSessions',
    summary: "How many users of the tenant have a session that has not ended (the landlord's: every tenant)",
  })
  async activeSessions(@CurrentActor() actor: Actor): Promise<ActiveSessionsDto> {
    const c = await this.sessions.count(actor.landlord ? undefined : actor.tenantId);
    return {
      count: c.count,
      startedAfter: new Date(c.startedAfter).toISOString(),
      at: new Date(c.at).toISOString(),
    };
  }
}

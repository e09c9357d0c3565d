import { Controller, HttpCode, Post } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminAction, Authenticated, Client, CurrentActor, Permission } from '@app/access';
import { ClientContext, type IfMatch, IfMatchHeader } from '@app/http-edge';
import { GuidParam } from '@app/input-rules';
import { SessionRevocationService } from './session-revocation.service';
import { Idempotent } from '@app/idempotency';

@ApiTags('UserRegistry')
@Controller('api/UserRegistry')
export class RevokeTokensController {
  constructor(private readonly revocation: SessionRevocationService) {}

  /** spec: Revoke Sessions — the caller's own tenant only; 204. */
  @Post('RevokeTokens/:id')
  @Idempotent()
  @AdminAction('UserRegistry', 'RevokeSessions', 'id')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiNoContentResponse({ description: 'Every session of the user has ended' })
  @ApiOperation({ operationId: 'revokeUserTokens', summary: 'Revoke Sessions: every session of a user ends' })
  revokeTokens(
    @CurrentActor() actor: Actor,
    @GuidParam('id') id: string,
    @Client() client: ClientContext,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.revocation.revokeByAdministrator(actor, id, client, ifMatch);
  }
}

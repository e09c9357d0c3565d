import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '@app/access';

export class LiveDto {
  @ApiProperty({ enum: ['ok'] }) status!: 'ok';
}

/**
 * Liveness: the process answers HTTP. 200 until the very end, also while shutting down (an orchestrator
 * must not kill a node that is draining) and while the database is away (restarting would not help).
 */
@ApiTags('Operations')
@Controller('api/Live')
export class LiveController {
  @Get()
  @Public()
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: 200 while the process answers HTTP' })
  @ApiOkResponse({ type: LiveDto })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }
}

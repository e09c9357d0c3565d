import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Actor, Authenticated, CurrentActor, GuidParam, Permission } from '@app/common';
import { ApiKeyService } from './api-key.service';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto, ListApiKeysQuery } from './dto/api-key.dto';

/** Administration, Security, Users, a user, Generate API Key. Only users of the caller's own tenant. */
@ApiTags('UserRegistryApiKey')
@Controller('api/UserRegistryApiKey')
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  @Post()
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiCreatedResponse({ type: CreatedApiKeyDto, description: 'The raw key is in this answer only.' })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(actor, dto);
  }

  @Get()
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOkResponse({ type: [ApiKeyDto] })
  list(@CurrentActor() actor: Actor, @Query() query: ListApiKeysQuery): Promise<ApiKeyDto[]> {
    return this.keys.list(actor, query.userRegistryGuid);
  }

  @Delete(':guid')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  revoke(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.keys.revoke(actor, guid);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminAction, Authenticated, CurrentActor, Permission } from '@app/access';
import { ApiPaged, CreatedAnswer, Paged, type ListPage, type PagedList } from '@app/http-edge';
import { ApiProblemResponses } from '@app/problems';
import { GuidParam } from '@app/input-rules';
import { ApiKeyService } from './api-key.service';
import { ApiKeyDto, CreateApiKeyDto, CreatedApiKeyDto, ListApiKeysQuery } from './dto/api-key.dto';

/** Administration, Security, Users, a user, Generate API Key. Only users of the caller's own tenant. */
@ApiTags('UserRegistryApiKey')
@Controller('api/UserRegistryApiKey')
export class ApiKeyController {
  constructor(private readonly keys: ApiKeyService) {}

  @Post()
  @AdminAction('UserRegistryApiKey', 'Create')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @CreatedAnswer(CreatedApiKeyDto, { etag: false, description: 'The raw key is in this answer only.' })
  @ApiProblemResponses({ 404: "No such user in the caller's own tenant" })
  @ApiOperation({
    operationId: 'createApiKey',
    summary: 'Create an API key for a user (the key is shown once)',
  })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.keys.create(actor, dto);
  }

  @Get()
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiPaged(ApiKeyDto)
  @ApiProblemResponses({ 404: "No such user in the caller's own tenant" })
  @ApiOperation({ operationId: 'listApiKeys', summary: 'List the API keys of a user' })
  list(
    @CurrentActor() actor: Actor,
    @Query() query: ListApiKeysQuery,
    @Paged() paged: PagedList,
  ): Promise<ListPage<ApiKeyDto>> {
    return paged.answer(this.keys.list(actor, query.userRegistryGuid, paged.request));
  }

  @Get(':guid')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOkResponse({ type: ApiKeyDto })
  @ApiOperation({
    operationId: 'getApiKey',
    summary: 'Get an API key',
    description:
      'One API key of a user of the caller’s own tenant, revoked or not, as the list shows it: its name, display identifier and dates, never the key itself. A key of another tenant’s user is a 404.',
  })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<ApiKeyDto> {
    return this.keys.get(actor, guid);
  }

  @Delete(':guid')
  @AdminAction('UserRegistryApiKey', 'Revoke')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOperation({ operationId: 'revokeApiKey', summary: 'Revoke an API key' })
  @ApiNoContentResponse({ description: 'Revoked' })
  revoke(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.keys.revoke(actor, guid);
  }
}

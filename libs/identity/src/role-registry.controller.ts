import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminAction, Authenticated, CurrentActor, Permission } from '@app/access';
import {
  ApiPaged,
  CreatedAnswer,
  type IfMatch,
  IfMatchHeader,
  Paged,
  type ListPage,
  type PagedList,
  RecordAnswer,
} from '@app/http-edge';
import { ApiProblemResponses } from '@app/problems';
import { GuidParam } from '@app/input-rules';
import { CreateRoleDto, PermissionDto, RoleDto, UpdateRoleDto } from './dto/identity.dto';
import { RoleService } from './role.service';
import { Idempotent } from '@app/idempotency';

@ApiTags('RoleRegistry')
@Controller('api/RoleRegistry')
export class RoleRegistryController {
  constructor(private readonly roles: RoleService) {}

  @Get('Permissions')
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiOkResponse({ type: [PermissionDto] })
  @ApiOperation({ operationId: 'listPermissions', summary: 'List the permissions a role can hold' })
  permissions(): PermissionDto[] {
    return this.roles.permissions();
  }

  @Get()
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiPaged(RoleDto)
  @ApiOperation({ operationId: 'listRoles', summary: 'List the roles of the tenant' })
  list(@CurrentActor() actor: Actor, @Paged() paged: PagedList): Promise<ListPage<RoleDto>> {
    return paged.answer(this.roles.list(actor, paged.request));
  }

  @Get(':guid')
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @RecordAnswer(RoleDto)
  @ApiOperation({ operationId: 'getRole', summary: 'Get a role' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<RoleDto> {
    return this.roles.get(actor, guid);
  }

  @Post()
  @Idempotent()
  @AdminAction('RoleRegistry', 'Create')
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiOperation({ operationId: 'createRole', summary: 'Create a role' })
  @ApiProblemResponses({
    422: 'tenantGuid names no tenant the caller may create a role in (urn:problem-type:unprocessable)',
  })
  @CreatedAnswer(RoleDto)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateRoleDto): Promise<RoleDto> {
    return this.roles.create(actor, dto);
  }

  @Put(':guid')
  @AdminAction('RoleRegistry', 'Update')
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiOperation({ operationId: 'updateRole', summary: 'Change a role' })
  @RecordAnswer(RoleDto)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
    @Body() dto: UpdateRoleDto,
  ): Promise<RoleDto> {
    return this.roles.update(actor, guid, dto, ifMatch);
  }

  @Delete(':guid')
  @AdminAction('RoleRegistry', 'Delete')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiOperation({ operationId: 'deleteRole', summary: 'Delete a role' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses({ 409: 'The role still has users (urn:problem-type:conflict)' })
  delete(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.roles.delete(actor, guid, ifMatch);
  }
}

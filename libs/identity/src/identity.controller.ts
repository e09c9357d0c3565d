import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { Actor, Authenticated, Client, ClientContext, CurrentActor, GuidParam, Permission } from '@app/common';
import {
  CreateRoleDto,
  CreateTenantDto,
  CreateUserDto,
  PermissionDto,
  ResetPasswordDto,
  RoleDto,
  TenantDto,
  UpdateRoleDto,
  UpdateTenantDto,
  UpdateUserDto,
  UserDto,
} from './dto/identity.dto';
import { RoleService } from './role.service';
import { TenantService } from './tenant.service';
import { UserService } from './user.service';

@ApiTags('TenantRegistry')
@Controller('api/TenantRegistry')
export class TenantRegistryController {
  constructor(private readonly tenants: TenantService) {}

  @Get()
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  @ApiOkResponse({ type: [TenantDto] })
  list(@CurrentActor() actor: Actor): Promise<TenantDto[]> {
    return this.tenants.list(actor);
  }

  @Get(':guid')
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  @ApiOkResponse({ type: TenantDto })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<TenantDto> {
    return this.tenants.get(actor, guid);
  }

  @Post()
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateTenantDto): Promise<TenantDto> {
    return this.tenants.create(actor, dto);
  }

  @Put(':guid')
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: UpdateTenantDto,
  ): Promise<TenantDto> {
    return this.tenants.update(actor, guid, dto);
  }

  @Delete(':guid')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  delete(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.tenants.delete(actor, guid);
  }
}

@ApiTags('RoleRegistry')
@Controller('api/RoleRegistry')
export class RoleRegistryController {
  constructor(private readonly roles: RoleService) {}

  @Get('Permissions')
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiOkResponse({ type: [PermissionDto] })
  permissions(): PermissionDto[] {
    return this.roles.permissions();
  }

  @Get()
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiOkResponse({ type: [RoleDto] })
  list(@CurrentActor() actor: Actor): Promise<RoleDto[]> {
    return this.roles.list(actor);
  }

  @Get(':guid')
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  @ApiOkResponse({ type: RoleDto })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<RoleDto> {
    return this.roles.get(actor, guid);
  }

  @Post()
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateRoleDto): Promise<RoleDto> {
    return this.roles.create(actor, dto);
  }

  @Put(':guid')
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: UpdateRoleDto,
  ): Promise<RoleDto> {
    return this.roles.update(actor, guid, dto);
  }

  @Delete(':guid')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityRole })
  delete(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.roles.delete(actor, guid);
  }
}

@ApiTags('UserRegistry')
@Controller('api/UserRegistry')
export class UserRegistryController {
  constructor(private readonly users: UserService) {}

  @Get()
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOkResponse({ type: [UserDto] })
  list(@CurrentActor() actor: Actor): Promise<UserDto[]> {
    return this.users.list(actor);
  }

  @Get(':guid')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOkResponse({ type: UserDto })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<UserDto> {
    return this.users.get(actor, guid);
  }

  @Post()
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateUserDto): Promise<UserDto> {
    return this.users.create(actor, dto);
  }

  @Put(':guid')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: UpdateUserDto,
  ): Promise<UserDto> {
    return this.users.update(actor, guid, dto);
  }

  @Post(':guid/Deactivate')
  @HttpCode(200)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  deactivate(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<UserDto> {
    return this.users.deactivate(actor, guid);
  }

  @Post(':guid/ResetPassword')
  @HttpCode(200)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  resetPassword(
    @Client() client: ClientContext,
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: ResetPasswordDto,
  ): Promise<UserDto> {
    return this.users.resetPassword(actor, guid, dto, client);
  }

  @Post(':guid/Unlock')
  @HttpCode(200)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  unlock(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<UserDto> {
    return this.users.unlock(actor, guid);
  }

  @Delete(':guid')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  delete(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.users.delete(actor, guid);
  }
}

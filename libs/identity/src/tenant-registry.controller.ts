import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
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
import { CreateTenantDto, TenantDto, UpdateTenantDto } from './dto/identity.dto';
import { TenantService } from './tenant.service';
import { Idempotent } from '@app/idempotency';

@ApiTags('TenantRegistry')
@Controller('api/TenantRegistry')
export class TenantRegistryController {
  constructor(private readonly tenants: TenantService) {}

  @Get()
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  @ApiPaged(TenantDto)
  @ApiOperation({ operationId: 'listTenants', summary: 'List the tenants' })
  list(@CurrentActor() actor: Actor, @Paged() paged: PagedList): Promise<ListPage<TenantDto>> {
    return paged.answer(this.tenants.list(actor, paged.request));
  }

  @Get(':guid')
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  @RecordAnswer(TenantDto)
  @ApiOperation({ operationId: 'getTenant', summary: 'Get a tenant' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<TenantDto> {
    return this.tenants.get(actor, guid);
  }

  @Post()
  @Idempotent()
  @AdminAction('TenantRegistry', 'Create')
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  @ApiOperation({ operationId: 'createTenant', summary: 'Create a tenant' })
  @CreatedAnswer(TenantDto)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateTenantDto): Promise<TenantDto> {
    return this.tenants.create(actor, dto);
  }

  @Put(':guid')
  @AdminAction('TenantRegistry', 'Update')
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  @ApiOperation({ operationId: 'updateTenant', summary: 'Change a tenant' })
  @RecordAnswer(TenantDto)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
    @Body() dto: UpdateTenantDto,
  ): Promise<TenantDto> {
    return this.tenants.update(actor, guid, dto, ifMatch);
  }

  @Delete(':guid')
  @AdminAction('TenantRegistry', 'Delete')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteTenant, landlordOnly: true })
  @ApiOperation({ operationId: 'deleteTenant', summary: 'Delete a tenant' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses({ 409: 'The landlord tenant cannot be deleted (urn:problem-type:conflict)' })
  delete(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.tenants.delete(actor, guid, ifMatch);
  }
}

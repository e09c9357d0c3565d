import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Actor, AdminAction, Authenticated, Client, CurrentActor, Permission } from '@app/access';
import {
  ApiPaged,
  ClientContext,
  CreatedAnswer,
  type IfMatch,
  IfMatchHeader,
  MAX_LIST_SEARCH_LENGTH,
  Paged,
  type ListPage,
  type PagedList,
  RecordAnswer,
  searchTerm,
} from '@app/http-edge';
import { ApiProblemResponses } from '@app/problems';
import { GuidParam } from '@app/input-rules';
import { CreateUserDto, ResetPasswordDto, RoleChoiceDto, UpdateUserDto, UserDto } from './dto/identity.dto';
import { UserService } from './user.service';
import { Idempotent } from '@app/idempotency';

@ApiTags('UserRegistry')
@Controller('api/UserRegistry')
export class UserRegistryController {
  constructor(private readonly users: UserService) {}

  @Get()
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiPaged(UserDto)
  @ApiQuery({
    name: 'search',
    required: false,
    schema: { type: 'string', maxLength: MAX_LIST_SEARCH_LENGTH },
    description:
      'Only the users whose name holds this text (case-insensitive, compared as normalised: trimmed, NFKC, lower case); with or without paging',
  })
  @ApiOperation({ operationId: 'listUsers', summary: 'List the users of the tenant' })
  list(
    @CurrentActor() actor: Actor,
    @Paged() paged: PagedList,
    @Query('search') search: unknown,
  ): Promise<ListPage<UserDto>> {
    return paged.answer(this.users.list(actor, paged.request, searchTerm(search)));
  }

  @Get('AssignableRoles')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiPaged(RoleChoiceDto)
  @ApiOperation({
    operationId: 'listAssignableRoles',
    summary: 'The roles a user administrator may give, by name (no right to manage roles needed)',
  })
  assignableRoles(@CurrentActor() actor: Actor, @Paged() paged: PagedList): Promise<ListPage<RoleChoiceDto>> {
    return paged.answer(this.users.assignableRoles(actor, paged.request));
  }

  @Get(':guid')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @RecordAnswer(UserDto)
  @ApiOperation({ operationId: 'getUser', summary: 'Get a user' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<UserDto> {
    return this.users.get(actor, guid);
  }

  @Post()
  @AdminAction('UserRegistry', 'Create')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOperation({ operationId: 'createUser', summary: 'Create a user' })
  @CreatedAnswer(UserDto)
  @ApiProblemResponses({
    409: 'A user with this name exists, you cannot deactivate or delete yourself, or a password write kept meeting new sign-ins (try again) (urn:problem-type:conflict)',
    422: "roleGuid names no role the caller may assign (or, for a change, none of the user's tenant) (urn:problem-type:unprocessable); or the password breaks the password rules (urn:problem-type:unprocessable)",
  })
  create(@CurrentActor() actor: Actor, @Body() dto: CreateUserDto): Promise<UserDto> {
    return this.users.create(actor, dto);
  }

  @Put(':guid')
  @AdminAction('UserRegistry', 'Update')
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOperation({ operationId: 'updateUser', summary: 'Change a user' })
  @RecordAnswer(UserDto)
  @ApiProblemResponses({
    409: 'A user with this name exists, you cannot deactivate or delete yourself, or a password write kept meeting new sign-ins (try again) (urn:problem-type:conflict)',
    422: "roleGuid names no role the caller may assign (or, for a change, none of the user's tenant) (urn:problem-type:unprocessable)",
  })
  update(
    @Client() client: ClientContext,
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
    @Body() dto: UpdateUserDto,
  ): Promise<UserDto> {
    return this.users.update(actor, guid, dto, client, ifMatch);
  }

  @Post(':guid/Deactivate')
  @Idempotent()
  @AdminAction('UserRegistry', 'Deactivate')
  @HttpCode(200)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOperation({ operationId: 'deactivateUser', summary: 'Deactivate a user (their sessions end)' })
  @RecordAnswer(UserDto)
  @ApiProblemResponses({
    409: 'A user with this name exists, you cannot deactivate or delete yourself, or a password write kept meeting new sign-ins (try again) (urn:problem-type:conflict)',
  })
  deactivate(
    @Client() client: ClientContext,
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<UserDto> {
    return this.users.deactivate(actor, guid, client, ifMatch);
  }

  @Post(':guid/ResetPassword')
  @AdminAction('UserRegistry', 'ResetPassword')
  @HttpCode(200)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOperation({
    operationId: 'resetUserPassword',
    summary: 'Set a new password for another user (their sessions end); your own: ChangePassword',
  })
  @RecordAnswer(UserDto)
  @ApiProblemResponses({
    409: 'A user with this name exists, you cannot deactivate or delete yourself, or a password write kept meeting new sign-ins (try again) (urn:problem-type:conflict)',
    422: 'The password breaks the password rules (PasswordMinimumLength…), or with WirePasswordHash is not the hex SHA-256 the browser makes (urn:problem-type:unprocessable)',
  })
  resetPassword(
    @Client() client: ClientContext,
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
    @Body() dto: ResetPasswordDto,
  ): Promise<UserDto> {
    return this.users.resetPassword(actor, guid, dto, client, ifMatch);
  }

  @Post(':guid/Unlock')
  @Idempotent()
  @AdminAction('UserRegistry', 'Unlock')
  @HttpCode(200)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOperation({
    operationId: 'unlockUser',
    summary:
      'Lift the password lock of a user at once (sign-ins with the password work again; sessions are not touched)',
  })
  @RecordAnswer(UserDto)
  unlock(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<UserDto> {
    return this.users.unlock(actor, guid, ifMatch);
  }

  @Delete(':guid')
  @AdminAction('UserRegistry', 'Delete')
  @HttpCode(204)
  @Authenticated({ permission: Permission.ReadWriteSecurityUser })
  @ApiOperation({ operationId: 'deleteUser', summary: 'Delete a user' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblemResponses({
    409: 'A user with this name exists, you cannot deactivate or delete yourself, or a password write kept meeting new sign-ins (try again) (urn:problem-type:conflict)',
  })
  delete(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.users.delete(actor, guid, ifMatch);
  }
}

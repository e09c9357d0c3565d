import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminAction, Authenticated, CurrentActor, Permission } from '@app/access';
import {
  ApiPaged,
  CreatedAnswer,
  type IfMatch,
  IfMatchHeader,
  type ListPage,
  Paged,
  type PagedList,
  RecordAnswer,
} from '@app/http-edge';
import { GuidParam } from '@app/input-rules';
import { WorkflowService } from './configuration/workflow.service';
import { CaseWorkflowDto, CreateCaseWorkflowDto, UpdateCaseWorkflowDto } from './dto/configuration.dto';
import { Idempotent } from '@app/idempotency';
const WORKFLOW = { permission: Permission.ReadWriteCaseWorkflow };

@ApiTags('CaseWorkflow')
@Controller('api/CaseWorkflow')
export class CaseWorkflowController {
  constructor(private readonly workflows: WorkflowService) {}

  @Get()
  @Authenticated(WORKFLOW)
  @ApiPaged(CaseWorkflowDto)
  @ApiOperation({ operationId: 'listCaseWorkflows', summary: 'List the case workflows of the tenant' })
  list(@CurrentActor() actor: Actor, @Paged() paged: PagedList): Promise<ListPage<CaseWorkflowDto>> {
    return paged.answer(this.workflows.list(actor, paged.request));
  }

  @Get(':guid')
  @Authenticated(WORKFLOW)
  @RecordAnswer(CaseWorkflowDto)
  @ApiOperation({ operationId: 'getCaseWorkflow', summary: 'Get a case workflow' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<CaseWorkflowDto> {
    return this.workflows.get(actor, guid);
  }

  @Post()
  @Idempotent()
  @AdminAction('CaseWorkflow', 'Create')
  @Authenticated(WORKFLOW)
  @ApiOperation({ operationId: 'createCaseWorkflow', summary: 'Create a case workflow' })
  @CreatedAnswer(CaseWorkflowDto)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateCaseWorkflowDto): Promise<CaseWorkflowDto> {
    return this.workflows.create(actor, dto);
  }

  @Put(':guid')
  @AdminAction('CaseWorkflow', 'Update')
  @Authenticated(WORKFLOW)
  @ApiOperation({ operationId: 'updateCaseWorkflow', summary: 'Change a case workflow' })
  @RecordAnswer(CaseWorkflowDto)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
    @Body() dto: UpdateCaseWorkflowDto,
  ): Promise<CaseWorkflowDto> {
    return this.workflows.update(actor, guid, dto, ifMatch);
  }

  @Delete(':guid')
  @AdminAction('CaseWorkflow', 'Delete')
  @HttpCode(204)
  @Authenticated(WORKFLOW)
  @ApiOperation({ operationId: 'deleteCaseWorkflow', summary: 'Delete a case workflow' })
  @ApiNoContentResponse({ description: 'Deleted' })
  delete(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.workflows.delete(actor, guid, ifMatch);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminAction, Authenticated, CurrentActor, Permission } from '@app/access';
import { ApiProblemResponses } from '@app/problems';
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
import { GuidParam, GuidQuery } from '@app/input-rules';
import { WorkflowService } from './configuration/workflow.service';
import {
  CaseWorkflowStatusDto,
  CreateCaseWorkflowStatusDto,
  UpdateCaseWorkflowStatusDto,
} from './dto/configuration.dto';
import { Idempotent } from '@app/idempotency';
const WORKFLOW = { permission: Permission.ReadWriteCaseWorkflow };

@ApiTags('CaseWorkflowStatus')
@Controller('api/CaseWorkflowStatus')
export class CaseWorkflowStatusController {
  constructor(private readonly workflows: WorkflowService) {}

  @Get()
  @Authenticated(WORKFLOW)
  @ApiPaged(CaseWorkflowStatusDto)
  @ApiOperation({ operationId: 'listCaseWorkflowStatuses', summary: 'List case workflow statuses' })
  @ApiProblemResponses({
    404: 'caseWorkflowGuid names no case workflow of the tenant (urn:problem-type:not-found)',
  })
  list(
    @CurrentActor() actor: Actor,
    @Paged() paged: PagedList,
    @GuidQuery('caseWorkflowGuid') workflowGuid?: string,
  ): Promise<ListPage<CaseWorkflowStatusDto>> {
    return paged.answer(this.workflows.listStatuses(actor, workflowGuid, paged.request));
  }

  @Get(':guid')
  @Authenticated(WORKFLOW)
  @RecordAnswer(CaseWorkflowStatusDto)
  @ApiOperation({ operationId: 'getCaseWorkflowStatus', summary: 'Get a case workflow status' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<CaseWorkflowStatusDto> {
    return this.workflows.getStatus(actor, guid);
  }

  @Post()
  @Idempotent()
  @AdminAction('CaseWorkflowStatus', 'Create')
  @Authenticated(WORKFLOW)
  @ApiOperation({ operationId: 'createCaseWorkflowStatus', summary: 'Create a case workflow status' })
  @ApiProblemResponses({
    422: 'caseWorkflowGuid names no case workflow of the tenant, or notifications or the HTTP endpoint are enabled without their destination or URL (urn:problem-type:unprocessable)',
  })
  @CreatedAnswer(CaseWorkflowStatusDto)
  create(
    @CurrentActor() actor: Actor,
    @Body() dto: CreateCaseWorkflowStatusDto,
  ): Promise<CaseWorkflowStatusDto> {
    return this.workflows.createStatus(actor, dto);
  }

  @Put(':guid')
  @AdminAction('CaseWorkflowStatus', 'Update')
  @Authenticated(WORKFLOW)
  @ApiOperation({ operationId: 'updateCaseWorkflowStatus', summary: 'Change a case workflow status' })
  @ApiProblemResponses({
    422: 'Notifications or the HTTP endpoint are enabled without their destination or URL (urn:problem-type:unprocessable)',
  })
  @RecordAnswer(CaseWorkflowStatusDto)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
    @Body() dto: UpdateCaseWorkflowStatusDto,
  ): Promise<CaseWorkflowStatusDto> {
    return this.workflows.updateStatus(actor, guid, dto, ifMatch);
  }

  @Delete(':guid')
  @AdminAction('CaseWorkflowStatus', 'Delete')
  @HttpCode(204)
  @Authenticated(WORKFLOW)
  @ApiOperation({ operationId: 'deleteCaseWorkflowStatus', summary: 'Delete a case workflow status' })
  @ApiNoContentResponse({ description: 'Deleted' })
  delete(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.workflows.deleteStatus(actor, guid, ifMatch);
  }
}

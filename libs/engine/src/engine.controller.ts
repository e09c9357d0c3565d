import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query, UseFilters } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import {
  Actor,
  AdminAction,
  ApiPaged,
  ApiProblemResponses,
  Authenticated,
  CurrentActor,
  CreatedAnswer,
  GuidParam,
  GuidQuery,
  Paged,
  type PagedList,
  type IfMatch,
  IfMatchHeader,
  Permission,
  RecordAnswer,
} from '@app/common';
import { ModelService } from './configuration/model.service';
import { WorkflowService } from './configuration/workflow.service';
import {
  ActivationRuleDto,
  CaseWorkflowDto,
  CaseWorkflowStatusDto,
  CreateActivationRuleDto,
  CreateCaseWorkflowDto,
  CreateCaseWorkflowStatusDto,
  CreateModelDto,
  CreateRequestXPathDto,
  ModelDto,
  RequestXPathDto,
  UpdateActivationRuleDto,
  UpdateCaseWorkflowDto,
  UpdateCaseWorkflowStatusDto,
  UpdateModelDto,
  UpdateRequestXPathDto,
} from './dto/configuration.dto';
import { InvokeResponseDto, ReprocessResponseDto } from './dto/invoke.dto';
import { InvokeResponse, InvokeService, ReprocessResponse } from './invoke/invoke.service';
import { InvokeRefusedFilter } from './invoke/invoke-refused.filter';

const MODEL = { permission: Permission.ReadWriteModel };
const WORKFLOW = { permission: Permission.ReadWriteCaseWorkflow };

@ApiTags('EntityAnalysisModel')
@Controller('api/EntityAnalysisModel')
export class EntityAnalysisModelController {
  constructor(private readonly models: ModelService) {}

  @Get()
  @Authenticated(MODEL)
  @ApiPaged(ModelDto)
  @ApiOperation({ operationId: 'listEntityAnalysisModels', summary: 'List the models of the tenant' })
  list(@CurrentActor() actor: Actor, @Paged() paged: PagedList): Promise<ModelDto[]> {
    return paged.answer(this.models.list(actor, paged.request));
  }

  @Get(':guid')
  @Authenticated(MODEL)
  @RecordAnswer(ModelDto)
  @ApiOperation({ operationId: 'getEntityAnalysisModel', summary: 'Get a model' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<ModelDto> {
    return this.models.get(actor, guid);
  }

  @Post()
  @AdminAction('EntityAnalysisModel', 'Create')
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'createEntityAnalysisModel', summary: 'Create a model' })
  @CreatedAnswer(ModelDto)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateModelDto): Promise<ModelDto> {
    return this.models.create(actor, dto);
  }

  @Put(':guid')
  @AdminAction('EntityAnalysisModel', 'Update')
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'updateEntityAnalysisModel', summary: 'Change a model' })
  @RecordAnswer(ModelDto)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
    @Body() dto: UpdateModelDto,
  ): Promise<ModelDto> {
    return this.models.update(actor, guid, dto, ifMatch);
  }

  @Delete(':guid')
  @AdminAction('EntityAnalysisModel', 'Delete')
  @HttpCode(204)
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'deleteEntityAnalysisModel', summary: 'Delete a model' })
  @ApiNoContentResponse({ description: 'Deleted' })
  delete(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @IfMatchHeader() ifMatch: IfMatch,
  ): Promise<void> {
    return this.models.delete(actor, guid, ifMatch);
  }

  // ---- sub-resource: request XPaths
  @Get(':guid/RequestXPath')
  @Authenticated(MODEL)
  @ApiOkResponse({ type: [RequestXPathDto] })
  @ApiOperation({ operationId: 'listRequestXPaths', summary: 'List the request XPaths of a model' })
  listXPaths(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<RequestXPathDto[]> {
    return this.models.listXPaths(actor, guid);
  }

  @Post(':guid/RequestXPath')
  @AdminAction('EntityAnalysisModelRequestXPath', 'Create', null)
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'createRequestXPath', summary: 'Add a request XPath to a model' })
  @ApiProblemResponses({ 409: 'The model already has a field of this name (urn:problem-type:conflict)' })
  @CreatedAnswer(RequestXPathDto, { etag: false })
  createXPath(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: CreateRequestXPathDto,
  ): Promise<RequestXPathDto> {
    return this.models.createXPath(actor, guid, dto);
  }

  @Put(':guid/RequestXPath/:xpathGuid')
  @AdminAction('EntityAnalysisModelRequestXPath', 'Update', 'xpathGuid')
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'updateRequestXPath', summary: 'Change a request XPath' })
  @ApiProblemResponses({ 409: 'The model already has a field of this name (urn:problem-type:conflict)' })
  @ApiOkResponse({ type: RequestXPathDto })
  updateXPath(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('xpathGuid') xpathGuid: string,
    @Body() dto: UpdateRequestXPathDto,
  ): Promise<RequestXPathDto> {
    return this.models.updateXPath(actor, guid, xpathGuid, dto);
  }

  @Delete(':guid/RequestXPath/:xpathGuid')
  @AdminAction('EntityAnalysisModelRequestXPath', 'Delete', 'xpathGuid')
  @HttpCode(204)
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'deleteRequestXPath', summary: 'Delete a request XPath' })
  @ApiNoContentResponse({ description: 'Deleted' })
  deleteXPath(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('xpathGuid') xpathGuid: string,
  ): Promise<void> {
    return this.models.deleteXPath(actor, guid, xpathGuid);
  }

  // ---- sub-resource: activation rules
  @Get(':guid/ActivationRule')
  @Authenticated(MODEL)
  @ApiOkResponse({ type: [ActivationRuleDto] })
  @ApiOperation({ operationId: 'listActivationRules', summary: 'List the activation rules of a model' })
  listRules(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<ActivationRuleDto[]> {
    return this.models.listRules(actor, guid);
  }

  @Post(':guid/ActivationRule')
  @AdminAction('EntityAnalysisModelActivationRule', 'Create', null)
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'createActivationRule', summary: 'Add an activation rule to a model' })
  @ApiProblemResponses({
    422: 'The condition is not a JSON Logic operation this engine runs, caseWorkflowGuid and caseWorkflowStatusGuid do not name a workflow of the tenant and one of its statuses (they go together), or a rule that raises a case has no caseKeyFieldName (urn:problem-type:unprocessable)',
  })
  @CreatedAnswer(ActivationRuleDto, { etag: false })
  createRule(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: CreateActivationRuleDto,
  ): Promise<ActivationRuleDto> {
    return this.models.createRule(actor, guid, dto);
  }

  @Put(':guid/ActivationRule/:ruleGuid')
  @AdminAction('EntityAnalysisModelActivationRule', 'Update', 'ruleGuid')
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'updateActivationRule', summary: 'Change an activation rule' })
  @ApiProblemResponses({
    422: 'The condition is not a JSON Logic operation this engine runs, caseWorkflowGuid and caseWorkflowStatusGuid do not name a workflow of the tenant and one of its statuses (they go together), or a rule that raises a case has no caseKeyFieldName (urn:problem-type:unprocessable)',
  })
  @ApiOkResponse({ type: ActivationRuleDto })
  updateRule(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('ruleGuid') ruleGuid: string,
    @Body() dto: UpdateActivationRuleDto,
  ): Promise<ActivationRuleDto> {
    return this.models.updateRule(actor, guid, ruleGuid, dto);
  }

  @Delete(':guid/ActivationRule/:ruleGuid')
  @AdminAction('EntityAnalysisModelActivationRule', 'Delete', 'ruleGuid')
  @HttpCode(204)
  @Authenticated(MODEL)
  @ApiOperation({ operationId: 'deleteActivationRule', summary: 'Delete an activation rule' })
  @ApiNoContentResponse({ description: 'Deleted' })
  deleteRule(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('ruleGuid') ruleGuid: string,
  ): Promise<void> {
    return this.models.deleteRule(actor, guid, ruleGuid);
  }
}

@ApiTags('CaseWorkflow')
@Controller('api/CaseWorkflow')
export class CaseWorkflowController {
  constructor(private readonly workflows: WorkflowService) {}

  @Get()
  @Authenticated(WORKFLOW)
  @ApiOkResponse({ type: [CaseWorkflowDto] })
  @ApiOperation({ operationId: 'listCaseWorkflows', summary: 'List the case workflows of the tenant' })
  list(@CurrentActor() actor: Actor): Promise<CaseWorkflowDto[]> {
    return this.workflows.list(actor);
  }

  @Get(':guid')
  @Authenticated(WORKFLOW)
  @RecordAnswer(CaseWorkflowDto)
  @ApiOperation({ operationId: 'getCaseWorkflow', summary: 'Get a case workflow' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<CaseWorkflowDto> {
    return this.workflows.get(actor, guid);
  }

  @Post()
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

@ApiTags('CaseWorkflowStatus')
@Controller('api/CaseWorkflowStatus')
export class CaseWorkflowStatusController {
  constructor(private readonly workflows: WorkflowService) {}

  @Get()
  @Authenticated(WORKFLOW)
  @ApiOkResponse({ type: [CaseWorkflowStatusDto] })
  @ApiOperation({ operationId: 'listCaseWorkflowStatuses', summary: 'List case workflow statuses' })
  @ApiProblemResponses({
    404: 'caseWorkflowGuid names no case workflow of the tenant (urn:problem-type:not-found)',
  })
  list(
    @CurrentActor() actor: Actor,
    @GuidQuery('caseWorkflowGuid') workflowGuid?: string,
  ): Promise<CaseWorkflowStatusDto[]> {
    return this.workflows.listStatuses(actor, workflowGuid);
  }

  @Get(':guid')
  @Authenticated(WORKFLOW)
  @RecordAnswer(CaseWorkflowStatusDto)
  @ApiOperation({ operationId: 'getCaseWorkflowStatus', summary: 'Get a case workflow status' })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<CaseWorkflowStatusDto> {
    return this.workflows.getStatus(actor, guid);
  }

  @Post()
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

const traceQuery = (trace?: string) => trace !== undefined && trace.toLowerCase() === 'true';

@ApiTags('Invoke')
@Controller('api/Invoke/EntityAnalysisModel')
export class InvokeController {
  constructor(private readonly invoker: InvokeService) {}

  @Post(':guid')
  @HttpCode(200)
  @Authenticated({ permission: Permission.Invoke, maintainCookie: false })
  @ApiBody({
    description:
      'Any JSON object (or array), up to 1 MiB, UTF-8, nested at most 64 levels, with no U+0000 and no lone surrogate in any member name or value (docs/SECURITY.md, Input limits)',
    schema: {
      // what the JSON body parser takes (strict: an object or an array); the model reads its fields (422)
      anyOf: [
        { type: 'object', additionalProperties: true },
        { type: 'array', items: {} },
      ],
      example: { AccountId: 'A-1', Amount: 125.5 },
    },
  })
  @ApiProblemResponses({
    400: 'A body deeper than 64 levels (field $), not UTF-8 ($), holding U+0000 or a lone surrogate (its JSON path) (urn:problem-type:validation)',
    422: 'The model cannot read the body: a field it requires is missing or not of its type (errors name the fields) (urn:problem-type:unprocessable)',
    503: 'Overload: the Archiver queue is full, or the case backlog (case lag) is; or the database is not answering (urn:problem-type:service-unavailable); Retry-After',
  })
  @ApiQuery({
    name: 'trace',
    required: false,
    schema: { type: 'string', enum: ['true', 'false'] },
    description: 'true (any case) adds the trace points',
  })
  @ApiOperation({ operationId: 'invokeEntityAnalysisModel', summary: 'Invoke a model with a JSON object' })
  @ApiOkResponse({ type: InvokeResponseDto })
  @UseFilters(InvokeRefusedFilter)
  invoke(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() body: unknown,
    @Query('trace') trace?: string,
  ): Promise<InvokeResponse> {
    return this.invoker.invoke(actor, guid, body, { trace: traceQuery(trace) });
  }

  @Post(':guid/Reprocess/:entryGuid')
  @HttpCode(200)
  @Authenticated({ permission: Permission.Invoke, maintainCookie: false })
  @ApiQuery({ name: 'trace', required: false })
  @ApiOperation({
    operationId: 'reprocessEntityAnalysisModelEntry',
    summary: 'Run an archived invocation through the model again',
  })
  @ApiOkResponse({ type: ReprocessResponseDto })
  @ApiProblemResponses({ 409: 'The invocation is being reprocessed already (urn:problem-type:conflict)' })
  reprocess(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('entryGuid') entryGuid: string,
    @Query('trace') trace?: string,
  ): Promise<ReprocessResponse> {
    return this.invoker.reprocess(actor, guid, entryGuid, { trace: traceQuery(trace) });
  }
}

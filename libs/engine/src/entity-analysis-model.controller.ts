import { Body, Controller, Delete, Get, HttpCode, Post, Put } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { Actor, AdminAction, Authenticated, CurrentActor, Permission } from '@app/access';
import {
  ApiPaged,
  CreatedAnswer,
  Paged,
  type ListPage,
  type PagedList,
  type IfMatch,
  IfMatchHeader,
  RecordAnswer,
} from '@app/http-edge';
import { ApiProblemResponses } from '@app/problems';
import { GuidParam } from '@app/input-rules';
import { ModelService } from './configuration/model.service';
import {
  ActivationRuleDto,
  CreateActivationRuleDto,
  CreateModelDto,
  CreateRequestXPathDto,
  ModelDto,
  RequestXPathDto,
  UpdateActivationRuleDto,
  UpdateModelDto,
  UpdateRequestXPathDto,
} from './dto/configuration.dto';
import { Idempotent } from '@app/idempotency';

const MODEL = { permission: Permission.ReadWriteModel };

@ApiTags('EntityAnalysisModel')
@Controller('api/EntityAnalysisModel')
export class EntityAnalysisModelController {
  constructor(private readonly models: ModelService) {}

  @Get()
  @Authenticated(MODEL)
  @ApiPaged(ModelDto)
  @ApiOperation({ operationId: 'listEntityAnalysisModels', summary: 'List the models of the tenant' })
  list(@CurrentActor() actor: Actor, @Paged() paged: PagedList): Promise<ListPage<ModelDto>> {
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
  @Idempotent()
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
  @ApiPaged(RequestXPathDto)
  @ApiOperation({ operationId: 'listRequestXPaths', summary: 'List the request XPaths of a model' })
  listXPaths(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Paged() paged: PagedList,
  ): Promise<ListPage<RequestXPathDto>> {
    return paged.answer(this.models.listXPaths(actor, guid, paged.request));
  }

  @Get(':guid/RequestXPath/:xpathGuid')
  @Authenticated(MODEL)
  @ApiOkResponse({ type: RequestXPathDto })
  @ApiOperation({ operationId: 'getRequestXPath', summary: 'Get a request XPath of a model' })
  getXPath(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('xpathGuid') xpathGuid: string,
  ): Promise<RequestXPathDto> {
    return this.models.getXPath(actor, guid, xpathGuid);
  }

  @Post(':guid/RequestXPath')
  @Idempotent()
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
  @ApiPaged(ActivationRuleDto)
  @ApiOperation({ operationId: 'listActivationRules', summary: 'List the activation rules of a model' })
  listRules(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Paged() paged: PagedList,
  ): Promise<ListPage<ActivationRuleDto>> {
    return paged.answer(this.models.listRules(actor, guid, paged.request));
  }

  @Get(':guid/ActivationRule/:ruleGuid')
  @Authenticated(MODEL)
  @ApiOkResponse({ type: ActivationRuleDto })
  @ApiOperation({ operationId: 'getActivationRule', summary: 'Get an activation rule of a model' })
  getRule(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('ruleGuid') ruleGuid: string,
  ): Promise<ActivationRuleDto> {
    return this.models.getRule(actor, guid, ruleGuid);
  }

  @Post(':guid/ActivationRule')
  @Idempotent()
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

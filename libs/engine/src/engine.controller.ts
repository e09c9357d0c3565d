import { Body, Controller, Delete, Get, HttpCode, Post, Put, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiOkResponse,
  ApiQuery,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { Actor, Authenticated, CurrentActor, GuidParam, GuidQuery, Permission } from '@app/common';
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
import { InvokeResponse, InvokeService, ReprocessResponse } from './invoke/invoke.service';

const MODEL = { permission: Permission.ReadWriteModel };
const WORKFLOW = { permission: Permission.ReadWriteCaseWorkflow };

@ApiTags('EntityAnalysisModel')
@Controller('api/EntityAnalysisModel')
export class EntityAnalysisModelController {
  constructor(private readonly models: ModelService) {}

  @Get()
  @Authenticated(MODEL)
  @ApiOkResponse({ type: [ModelDto] })
  list(@CurrentActor() actor: Actor): Promise<ModelDto[]> {
    return this.models.list(actor);
  }

  @Get(':guid')
  @Authenticated(MODEL)
  @ApiOkResponse({ type: ModelDto })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<ModelDto> {
    return this.models.get(actor, guid);
  }

  @Post()
  @Authenticated(MODEL)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateModelDto): Promise<ModelDto> {
    return this.models.create(actor, dto);
  }

  @Put(':guid')
  @Authenticated(MODEL)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: UpdateModelDto,
  ): Promise<ModelDto> {
    return this.models.update(actor, guid, dto);
  }

  @Delete(':guid')
  @HttpCode(204)
  @Authenticated(MODEL)
  delete(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.models.delete(actor, guid);
  }

  // ---- sub-resource: request XPaths
  @Get(':guid/RequestXPath')
  @Authenticated(MODEL)
  @ApiOkResponse({ type: [RequestXPathDto] })
  listXPaths(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<RequestXPathDto[]> {
    return this.models.listXPaths(actor, guid);
  }

  @Post(':guid/RequestXPath')
  @Authenticated(MODEL)
  createXPath(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: CreateRequestXPathDto,
  ): Promise<RequestXPathDto> {
    return this.models.createXPath(actor, guid, dto);
  }

  @Put(':guid/RequestXPath/:xpathGuid')
  @Authenticated(MODEL)
  updateXPath(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('xpathGuid') xpathGuid: string,
    @Body() dto: UpdateRequestXPathDto,
  ): Promise<RequestXPathDto> {
    return this.models.updateXPath(actor, guid, xpathGuid, dto);
  }

  @Delete(':guid/RequestXPath/:xpathGuid')
  @HttpCode(204)
  @Authenticated(MODEL)
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
  listRules(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<ActivationRuleDto[]> {
    return this.models.listRules(actor, guid);
  }

  @Post(':guid/ActivationRule')
  @Authenticated(MODEL)
  createRule(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: CreateActivationRuleDto,
  ): Promise<ActivationRuleDto> {
    return this.models.createRule(actor, guid, dto);
  }

  @Put(':guid/ActivationRule/:ruleGuid')
  @Authenticated(MODEL)
  updateRule(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('ruleGuid') ruleGuid: string,
    @Body() dto: UpdateActivationRuleDto,
  ): Promise<ActivationRuleDto> {
    return this.models.updateRule(actor, guid, ruleGuid, dto);
  }

  @Delete(':guid/ActivationRule/:ruleGuid')
  @HttpCode(204)
  @Authenticated(MODEL)
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
  list(@CurrentActor() actor: Actor): Promise<CaseWorkflowDto[]> {
    return this.workflows.list(actor);
  }

  @Get(':guid')
  @Authenticated(WORKFLOW)
  @ApiOkResponse({ type: CaseWorkflowDto })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<CaseWorkflowDto> {
    return this.workflows.get(actor, guid);
  }

  @Post()
  @Authenticated(WORKFLOW)
  create(@CurrentActor() actor: Actor, @Body() dto: CreateCaseWorkflowDto): Promise<CaseWorkflowDto> {
    return this.workflows.create(actor, dto);
  }

  @Put(':guid')
  @Authenticated(WORKFLOW)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: UpdateCaseWorkflowDto,
  ): Promise<CaseWorkflowDto> {
    return this.workflows.update(actor, guid, dto);
  }

  @Delete(':guid')
  @HttpCode(204)
  @Authenticated(WORKFLOW)
  delete(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.workflows.delete(actor, guid);
  }
}

@ApiTags('CaseWorkflowStatus')
@Controller('api/CaseWorkflowStatus')
export class CaseWorkflowStatusController {
  constructor(private readonly workflows: WorkflowService) {}

  @Get()
  @Authenticated(WORKFLOW)
  @ApiQuery({ name: 'caseWorkflowGuid', required: false })
  @ApiOkResponse({ type: [CaseWorkflowStatusDto] })
  list(
    @CurrentActor() actor: Actor,
    @GuidQuery('caseWorkflowGuid') workflowGuid?: string,
  ): Promise<CaseWorkflowStatusDto[]> {
    return this.workflows.listStatuses(actor, workflowGuid);
  }

  @Get(':guid')
  @Authenticated(WORKFLOW)
  @ApiOkResponse({ type: CaseWorkflowStatusDto })
  get(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<CaseWorkflowStatusDto> {
    return this.workflows.getStatus(actor, guid);
  }

  @Post()
  @Authenticated(WORKFLOW)
  create(
    @CurrentActor() actor: Actor,
    @Body() dto: CreateCaseWorkflowStatusDto,
  ): Promise<CaseWorkflowStatusDto> {
    return this.workflows.createStatus(actor, dto);
  }

  @Put(':guid')
  @Authenticated(WORKFLOW)
  update(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @Body() dto: UpdateCaseWorkflowStatusDto,
  ): Promise<CaseWorkflowStatusDto> {
    return this.workflows.updateStatus(actor, guid, dto);
  }

  @Delete(':guid')
  @HttpCode(204)
  @Authenticated(WORKFLOW)
  delete(@CurrentActor() actor: Actor, @GuidParam() guid: string): Promise<void> {
    return this.workflows.deleteStatus(actor, guid);
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
      'Any JSON object, up to 1 MiB, UTF-8, nested at most 64 levels, with no U+0000 and no lone surrogate in any member name or value (docs/SECURITY.md, Input limits)',
    schema: { type: 'object' },
  })
  @ApiBadRequestResponse({
    description:
      'A body deeper than 64 levels (field $), not UTF-8 ($), holding U+0000 or a lone surrogate (its JSON path), or that the model cannot read (its fields)',
  })
  @ApiQuery({ name: 'trace', required: false, description: 'true adds the trace points' })
  @ApiServiceUnavailableResponse({ description: 'The Archiver queue is full (Retry-After)' })
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
  reprocess(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('entryGuid') entryGuid: string,
    @Query('trace') trace?: string,
  ): Promise<ReprocessResponse> {
    return this.invoker.reprocess(actor, guid, entryGuid, { trace: traceQuery(trace) });
  }
}

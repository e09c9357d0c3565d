import { Body, Controller, HttpCode, Post, Query, UseFilters } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Actor, Authenticated, CurrentActor, Permission } from '@app/access';
import { ApiProblemResponses } from '@app/problems';
import { GuidParam } from '@app/input-rules';
import { InvokeResponseDto, ReprocessResponseDto } from './dto/invoke.dto';
import { InvokeResponse, InvokeService, ReprocessResponse } from './invoke/invoke.service';
import { InvokeRefusedFilter } from './invoke/invoke-refused.filter';
import { DEMO_INVOKE_EXAMPLE } from './demo/demo-model';
import { Idempotent } from '@app/idempotency';

const traceQuery = (trace?: string) => trace !== undefined && trace.toLowerCase() === 'true';

@ApiTags('Invoke')
@Controller('api/Invoke/EntityAnalysisModel')
export class InvokeController {
  constructor(private readonly invoker: InvokeService) {}

  @Post(':guid')
  @Idempotent()
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
      // a transaction the shipped demo model reads: the explorer's example is a 200 against it
      example: DEMO_INVOKE_EXAMPLE,
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
    description: 'true adds the trace points',
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
  @Idempotent()
  @HttpCode(200)
  @Authenticated({ permission: Permission.Invoke, maintainCookie: false })
  @ApiQuery({ name: 'trace', required: false, schema: { type: 'string', enum: ['true', 'false'] } })
  @ApiOperation({
    operationId: 'reprocessEntityAnalysisModelEntry',
    summary: 'Run an archived invocation through the model again',
  })
  @ApiOkResponse({ type: ReprocessResponseDto })
  @ApiProblemResponses({
    409: 'The invocation is being reprocessed already (urn:problem-type:conflict)',
    422: 'The model as it is now cannot read the archived request (urn:problem-type:unprocessable)',
  })
  reprocess(
    @CurrentActor() actor: Actor,
    @GuidParam() guid: string,
    @GuidParam('entryGuid') entryGuid: string,
    @Query('trace') trace?: string,
  ): Promise<ReprocessResponse> {
    return this.invoker.reprocess(actor, guid, entryGuid, { trace: traceQuery(trace) });
  }
}

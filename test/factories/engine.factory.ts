import type { INestApplicationContext } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { Actor } from '@app/access';
import {
  ActivationRuleDto,
  CaseWorkflowStatusDto,
  CreateModelDto,
  DataTypeName,
  ModelDto,
  ModelService,
  UpdateCaseWorkflowStatusDto,
  WorkflowService,
} from '@app/engine';

export interface StatusSpec extends UpdateCaseWorkflowStatusDto {
  name: string;
  priority: number;
}

export interface RuleSpec {
  name?: string;
  condition: object | boolean;
  /** Index into the statuses created with the model; omitted = the rule raises no case. */
  status?: number;
  caseKeyFieldName?: string;
}

export interface DemoLikeModel {
  model: ModelDto;
  workflowGuid: string;
  statuses: CaseWorkflowStatusDto[];
  rules: ActivationRuleDto[];
}

/**
 * A model with the fields AccountId ($.account.id, required), Email, Amount ($.amount, Float) and
 * Country, a workflow with the given statuses, and the given rules; through the services, as an
 * administrator would.
 */
export async function createEngineModel(
  app: INestApplicationContext,
  actor: Actor,
  options: { model?: Partial<CreateModelDto>; statuses?: StatusSpec[]; rules?: RuleSpec[] } = {},
): Promise<DemoLikeModel> {
  const models = app.get(ModelService);
  const workflows = app.get(WorkflowService);
  const suffix = randomBytes(3).toString('hex');
  const workflow = await workflows.create(actor, { name: `Workflow ${suffix}` });
  const statuses: CaseWorkflowStatusDto[] = [];
  for (const s of options.statuses ?? [{ name: 'Open', priority: 5 }])
    statuses.push(await workflows.createStatus(actor, { caseWorkflowGuid: workflow.guid, ...s }));
  const model = await models.create(actor, {
    name: `Model ${suffix}`,
    entryXPath: '$.transactionId',
    referenceDateXPath: '$.occurred',
    ...options.model,
  });
  const fields: [string, string, DataTypeName, boolean][] = [
    ['AccountId', '$.account.id', 'String', true],
    ['Email', '$.account.email', 'String', false],
    ['Amount', '$.amount', 'Float', false],
    ['Country', '$.country', 'String', false],
  ];
  for (const [name, xPath, dataType, required] of fields)
    await models.createXPath(actor, model.guid, { name, xPath, dataType, required });
  const rules: ActivationRuleDto[] = [];
  for (const [i, r] of (options.rules ?? []).entries()) {
    rules.push(
      await models.createRule(actor, model.guid, {
        name: r.name ?? `Rule ${i}`,
        condition: r.condition,
        ...(r.status !== undefined
          ? {
              caseWorkflowGuid: workflow.guid,
              caseWorkflowStatusGuid: statuses[r.status].guid,
              caseKeyFieldName: r.caseKeyFieldName ?? 'AccountId',
            }
          : {}),
      }),
    );
  }
  return { model, workflowGuid: workflow.guid, statuses, rules };
}

/** A transaction body for createEngineModel's fields. */
export function transaction(account: string, amount: number, extra: Record<string, unknown> = {}) {
  return {
    transactionId: `tx-${randomBytes(6).toString('hex')}`,
    occurred: '2026-01-02T03:04:05.000Z',
    account: { id: account, email: `${account.toLowerCase()}@example.test` },
    amount,
    country: 'DE',
    ...extra,
  };
}

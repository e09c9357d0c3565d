import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ENGINE_SETTINGS, type EngineSettings } from '@app/config';
import { Actor } from '@app/access';
import { TenantRegistry } from '@app/identity';
import { ConfigurationRepository } from '../model/configuration.repository';
import { ModelService } from '../configuration/model.service';
import { WorkflowService } from '../configuration/workflow.service';
import { DEMO_MODEL_GUID } from './demo-model';

/**
 * First start: a small demo model (fields, two rules), a case workflow and two statuses in the landlord
 * tenant, so a new user can invoke something at once (`npm run demo`). Idempotent: nothing is created when
 * the demo model's guid exists, even soft-deleted (a user who deleted it keeps it deleted).
 */
@Injectable()
export class DemoSeedService implements OnApplicationBootstrap {
  private readonly logger = new Logger('DemoSeed');

  constructor(
    private readonly repo: ConfigurationRepository,
    private readonly models: ModelService,
    private readonly workflows: WorkflowService,
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(ENGINE_SETTINGS.token) private readonly settings: EngineSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.CreateDemoModel) return;
    try {
      await this.seed();
    } catch (err) {
      // Another node may have seeded at the same moment (unique guid); the demo is never worth a crash.
      this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'Demo model not created');
    }
  }

  async seed(): Promise<boolean> {
    if (await this.repo.modelGuidExists(DEMO_MODEL_GUID)) return false;
    const landlord = await this.dataSource
      .getRepository(TenantRegistry)
      .findOne({ where: { Landlord: true } });
    if (!landlord) return false;
    const actor: Actor = {
      userId: 0,
      userGuid: '',
      userName: 'Demo',
      tenantId: landlord.Id,
      tenantGuid: landlord.Guid,
      landlord: true,
      permissions: new Set(),
      credential: 'api-key',
    };
    const workflow = await this.workflows.create(actor, { name: 'Demo fraud review' });
    const review = await this.workflows.createStatus(actor, {
      caseWorkflowGuid: workflow.guid,
      name: 'Review',
      priority: 2,
    });
    const escalated = await this.workflows.createStatus(actor, {
      caseWorkflowGuid: workflow.guid,
      name: 'Escalated',
      priority: 1,
    });
    await this.models.create(
      actor,
      {
        name: 'Demo payments',
        logsWarnThresholdMilliseconds: 5,
        entryXPath: '$.transactionId',
        referenceDateXPath: '$.occurred',
      },
      DEMO_MODEL_GUID,
    );
    for (const [name, xPath, dataType, required] of [
      ['AccountId', '$.account.id', 'String', true],
      ['Email', '$.account.email', 'String', false],
      ['Amount', '$.amount', 'Float', true],
      ['Currency', '$.currency', 'String', false],
      ['Country', '$.country', 'String', false],
    ] as const) {
      await this.models.createXPath(actor, DEMO_MODEL_GUID, { name, xPath, dataType, required });
    }
    await this.models.createRule(actor, DEMO_MODEL_GUID, {
      name: 'Large amount',
      condition: { '>': [{ var: 'Amount' }, 5000] },
      caseWorkflowGuid: workflow.guid,
      caseWorkflowStatusGuid: review.guid,
      caseKeyFieldName: 'AccountId',
    });
    await this.models.createRule(actor, DEMO_MODEL_GUID, {
      name: 'Very large amount abroad',
      condition: { and: [{ '>': [{ var: 'Amount' }, 9000] }, { '!=': [{ var: 'Country' }, 'NL'] }] },
      caseWorkflowGuid: workflow.guid,
      caseWorkflowStatusGuid: escalated.guid,
      caseKeyFieldName: 'AccountId',
    });
    this.logger.log(`Created the demo model ${DEMO_MODEL_GUID} in the landlord tenant`);
    return true;
  }
}

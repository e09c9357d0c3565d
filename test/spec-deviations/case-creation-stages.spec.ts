import request from 'supertest';
import { CaseCreationStage, PipelineTelemetry } from '@app/engine';
// The configuration read model itself: the test makes its status look-up slow.
import { ConfigurationRepository } from '../../libs/engine/src/model/configuration.repository';
import { createEngineModel, transaction } from '../factories/engine.factory';
import { landlordActor } from '../factories/identity.factory';
import { waitFor } from '../support/spawn-server';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * The target workflow status is looked up in stage 2
 * (WorkflowStatusLookupAndPersist), not in stage 1 (ExistingCasePriorityLookup): a slow status look-up shows in
 * stage 2's duration.
 */
describe('case creation stage timings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('times the status look-up in stage 2', async () => {
    const actor = await landlordActor(t.app);
    const engine = await createEngineModel(t.app, actor, {
      rules: [{ condition: { '>': [{ var: 'Amount' }, 100] }, status: 0 }],
    });
    const config = t.app.get(ConfigurationRepository);
    // The status is new to case creation's cache, so the batch reads it (in stage 2).
    const lookup = config.findLiveStatusesByIds.bind(config);
    config.findLiveStatusesByIds = async (ids: readonly number[]) => {
      await new Promise((r) => setTimeout(r, 200));
      return lookup(ids);
    };
    const durations: [CaseCreationStage, number][] = [];
    const telemetry = t.app.get(PipelineTelemetry);
    const stage = telemetry.caseCreationStage.bind(telemetry);
    telemetry.caseCreationStage = (s: CaseCreationStage, micros: number) => {
      durations.push([s, micros]);
      stage(s, micros);
    };
    const token = (
      await request(t.url).post('/api/Authentication/ByUserNamePassword').send({
        userName: 'Administrator',
        password: 'Bootstrap-Password-123!',
        newPassword: 'A-New-Password-123',
        repeatNewPassword: 'A-New-Password-123',
      })
    ).body.token as string;
    await request(t.url)
      .post(`/api/Invoke/EntityAnalysisModel/${engine.model.guid}`)
      .set('Authorization', `Bearer ${token}`)
      .send(transaction('ACC-SLOW', 500))
      .expect(200);
    await waitFor(
      () => durations.some(([s]) => s === CaseCreationStage.WorkflowStatusLookupAndPersist),
      10_000,
      'stage 2',
    );
    const of = (s: CaseCreationStage) => durations.find(([d]) => d === s)?.[1] ?? NaN;
    expect(of(CaseCreationStage.WorkflowStatusLookupAndPersist)).toBeGreaterThanOrEqual(190_000);
    expect(of(CaseCreationStage.ExistingCasePriorityLookup)).toBeLessThan(190_000);
  });
});

import type { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiKeyService } from '@app/api-keys';
import type { Actor } from '@app/access';
import { ArchiverService } from '../../libs/engine/src/archiver/archiver.service';
import { CaseRecord, EntityAnalysisModel, EntityAnalysisModelArchive } from '../../libs/engine/src/entities';
import { createEngineModel } from '../factories/engine.factory';
import { landlordActor } from '../factories/identity.factory';

export const INVOKE_ROUTE = 'POST /api/Invoke/EntityAnalysisModel/:guid';

/** The landlord Administrator with an API key, and a model whose one rule raises a case for every invocation. */
export async function idempotencyFixture(app: INestApplicationContext) {
  const admin: Actor = await landlordActor(app);
  const apiKey = (
    await app
      .get(ApiKeyService)
      .create(admin, { userRegistryGuid: admin.userGuid, name: `idem-${Date.now()}` })
  ).key;
  const { model } = await createEngineModel(app, admin, { rules: [{ condition: true, status: 0 }] });
  const ds = app.get(DataSource);
  const modelId = (await ds.getRepository(EntityAnalysisModel).findOneByOrFail({ Guid: model.guid })).Id;
  return { admin, apiKey, model, modelId };
}

/** Archived invocations of the model and cases of the account, after the Archiver and case creation drain. */
export async function drainedCounts(apps: INestApplicationContext[], modelId: number, account: string) {
  for (const app of apps) await app.get(ArchiverService).drain();
  const ds = apps[0].get(DataSource);
  return {
    archived: await ds.getRepository(EntityAnalysisModelArchive).countBy({ EntityAnalysisModelId: modelId }),
    cases: await ds.getRepository(CaseRecord).countBy({ CaseKeyValue: account }),
  };
}

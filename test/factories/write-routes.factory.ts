import type { INestApplicationContext } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { ApiKeyService } from '@app/api-keys';
import { ALL_PERMISSIONS, Permission } from '@app/access';
import { ArchiverService, InvokeService, ModelService } from '@app/engine';
import { RoleService, TenantService } from '@app/identity';
import { createEngineModel } from './engine.factory';
import { createUser, CreatedUser, landlordActor } from './identity.factory';

/** The records every write route can act on, created as an administrator would. */
export interface WriteRouteFixtures {
  /** Landlord-tenant user holding every permission: the caller. */
  caller: CreatedUser;
  /** A user the caller administers, and signs in with (probe sign-ins). */
  user: CreatedUser;
  tenantGuid: string;
  roleGuid: string;
  apiKeyGuid: string;
  modelGuid: string;
  xpathGuid: string;
  ruleGuid: string;
  workflowGuid: string;
  statusGuid: string;
  entryGuid: string;
}

export async function createWriteRouteFixtures(app: INestApplicationContext): Promise<WriteRouteFixtures> {
  const landlord = await landlordActor(app);
  const caller = await createUser(app, {
    tenantGuid: landlord.tenantGuid,
    permissions: [...ALL_PERMISSIONS],
  });
  const user = await createUser(app, { tenantGuid: landlord.tenantGuid, permissions: [Permission.Invoke] });
  const tenant = await app
    .get(TenantService)
    .create(landlord, { name: `Tenant ${randomBytes(3).toString('hex')}` });
  // A role without users, so that deleting it would succeed.
  const role = await app
    .get(RoleService)
    .create(landlord, { name: `Role ${randomBytes(3).toString('hex')}`, permissions: [Permission.Invoke] });
  const apiKey = await app
    .get(ApiKeyService)
    .create(caller.actor, { userRegistryGuid: user.guid, name: 'write-route fixture' });
  const engine = await createEngineModel(app, caller.actor, {
    rules: [{ condition: { '>': [{ var: 'Amount' }, 1] }, status: 0 }],
  });
  const answer = await app.get(InvokeService).invoke(caller.actor, engine.model.guid, {
    transactionId: 'tx-fixture',
    account: { id: 'ACC-FIXTURE' },
    amount: 5,
  });
  await app.get(ArchiverService).drain();
  return {
    caller,
    user,
    tenantGuid: tenant.guid,
    roleGuid: role.guid,
    apiKeyGuid: apiKey.guid,
    modelGuid: engine.model.guid,
    xpathGuid: (
      await app.get(ModelService).listXPaths(caller.actor, engine.model.guid, { limit: 1, after: 0 })
    ).items[0].guid,
    ruleGuid: engine.rules[0].guid,
    workflowGuid: engine.workflowGuid,
    statusGuid: engine.statuses[0].guid,
    entryGuid: answer.entityAnalysisModelInstanceEntryGuid,
  };
}

/** What a write route is sent: its path parameters, and a body that it would accept (every field given). */
export interface WriteRequest {
  params: Record<string, string>;
  body?: Record<string, unknown>;
}

const name = (prefix: string) => `${prefix} ${randomBytes(3).toString('hex')}`;

/**
 * A valid request per write route, next to nothing but the DTOs: the generated test (test/input) mutates one
 * field at a time. Every field of the route's DTO is given, so each one is mutated; a route missing here fails
 * that test, so a new route gets its line.
 */
export const WRITE_REQUESTS: Record<string, (fx: WriteRouteFixtures) => WriteRequest> = {
  'POST /api/Authentication/ByUserNamePassword': (fx) => ({
    params: {},
    body: { userName: fx.user.name, password: fx.user.password, newPassword: null, repeatNewPassword: null },
  }),
  'POST /api/Authentication/Passcode': () => ({
    params: {},
    body: { passcodeToken: 'a.b.c', passcode: '123456' },
  }),
  'POST /api/Authentication/ChangePassword': (fx) => ({
    params: {},
    body: {
      password: fx.caller.password,
      newPassword: 'Another-Password-42',
      repeatNewPassword: 'Another-Password-42',
    },
  }),
  'POST /api/Authentication/WirePasswordHash': (fx) => ({ params: {}, body: { userName: fx.user.name } }),
  'POST /api/UserRegistry/RevokeTokens/:id': (fx) => ({ params: { id: fx.user.guid } }),
  'POST /api/TenantRegistry': () => ({ params: {}, body: { name: name('Tenant') } }),
  'PUT /api/TenantRegistry/:guid': (fx) => ({
    params: { guid: fx.tenantGuid },
    body: { name: name('Tenant') },
  }),
  'DELETE /api/TenantRegistry/:guid': (fx) => ({ params: { guid: fx.tenantGuid } }),
  'POST /api/RoleRegistry': (fx) => ({
    params: {},
    body: { name: name('Role'), permissions: [Permission.Invoke], tenantGuid: fx.tenantGuid },
  }),
  'PUT /api/RoleRegistry/:guid': (fx) => ({
    params: { guid: fx.roleGuid },
    body: { name: name('Role'), permissions: [Permission.Invoke] },
  }),
  'DELETE /api/RoleRegistry/:guid': (fx) => ({ params: { guid: fx.roleGuid } }),
  'POST /api/UserRegistry': (fx) => ({
    params: {},
    body: {
      name: name('user'),
      email: 'someone@example.test',
      roleGuid: fx.roleGuid,
      password: 'A-Good-Password-42',
      passwordExpired: false,
      passwordExpiryDate: '2030-01-01T00:00:00Z',
      wirePasswordHash: false,
    },
  }),
  'PUT /api/UserRegistry/:guid': (fx) => ({
    params: { guid: fx.user.guid },
    body: { email: 'other@example.test', roleGuid: fx.user.roleGuid, active: true },
  }),
  'POST /api/UserRegistry/:guid/Deactivate': (fx) => ({ params: { guid: fx.user.guid } }),
  'POST /api/UserRegistry/:guid/ResetPassword': (fx) => ({
    params: { guid: fx.user.guid },
    body: { password: 'A-Reset-Password-42', passwordExpired: true, wirePasswordHash: false },
  }),
  'POST /api/UserRegistry/:guid/Unlock': (fx) => ({ params: { guid: fx.user.guid } }),
  'DELETE /api/UserRegistry/:guid': (fx) => ({ params: { guid: fx.user.guid } }),
  'POST /api/UserRegistryApiKey': (fx) => ({
    params: {},
    body: { userRegistryGuid: fx.user.guid, name: name('Key'), description: 'For the nightly batch' },
  }),
  'DELETE /api/UserRegistryApiKey/:guid': (fx) => ({ params: { guid: fx.apiKeyGuid } }),
  'POST /api/EntityAnalysisModel': () => ({
    params: {},
    body: {
      name: name('Model'),
      active: true,
      logsWarnThresholdMilliseconds: 100,
      enableRdbmsArchive: true,
      entryXPath: '$.transactionId',
      referenceDateXPath: '$.occurred',
      archiveRetentionDays: 30,
    },
  }),
  'PUT /api/EntityAnalysisModel/:guid': (fx) => ({
    params: { guid: fx.modelGuid },
    body: {
      name: name('Model'),
      active: true,
      logsWarnThresholdMilliseconds: 100,
      enableRdbmsArchive: true,
      entryXPath: '$.transactionId',
      referenceDateXPath: '$.occurred',
      archiveRetentionDays: 30,
    },
  }),
  'DELETE /api/EntityAnalysisModel/:guid': (fx) => ({ params: { guid: fx.modelGuid } }),
  'POST /api/EntityAnalysisModel/:guid/RequestXPath': (fx) => ({
    params: { guid: fx.modelGuid },
    body: { name: 'Merchant', xPath: '$.merchant.id', dataType: 'String', required: false },
  }),
  'PUT /api/EntityAnalysisModel/:guid/RequestXPath/:xpathGuid': (fx) => ({
    params: { guid: fx.modelGuid, xpathGuid: fx.xpathGuid },
    body: { name: 'Merchant', xPath: '$.merchant.id', dataType: 'String', required: false },
  }),
  'DELETE /api/EntityAnalysisModel/:guid/RequestXPath/:xpathGuid': (fx) => ({
    params: { guid: fx.modelGuid, xpathGuid: fx.xpathGuid },
  }),
  'POST /api/EntityAnalysisModel/:guid/ActivationRule': (fx) => ({
    params: { guid: fx.modelGuid },
    body: {
      name: name('Rule'),
      condition: { '>': [{ var: 'Amount' }, 100] },
      caseWorkflowGuid: fx.workflowGuid,
      caseWorkflowStatusGuid: fx.statusGuid,
      caseKeyFieldName: 'AccountId',
      active: true,
    },
  }),
  'PUT /api/EntityAnalysisModel/:guid/ActivationRule/:ruleGuid': (fx) => ({
    params: { guid: fx.modelGuid, ruleGuid: fx.ruleGuid },
    body: {
      name: name('Rule'),
      condition: { '>': [{ var: 'Amount' }, 100] },
      caseWorkflowGuid: fx.workflowGuid,
      caseWorkflowStatusGuid: fx.statusGuid,
      caseKeyFieldName: 'AccountId',
      active: true,
    },
  }),
  'DELETE /api/EntityAnalysisModel/:guid/ActivationRule/:ruleGuid': (fx) => ({
    params: { guid: fx.modelGuid, ruleGuid: fx.ruleGuid },
  }),
  'POST /api/CaseWorkflow': () => ({ params: {}, body: { name: name('Workflow'), active: true } }),
  'PUT /api/CaseWorkflow/:guid': (fx) => ({
    params: { guid: fx.workflowGuid },
    body: { name: name('Workflow'), active: true },
  }),
  'DELETE /api/CaseWorkflow/:guid': (fx) => ({ params: { guid: fx.workflowGuid } }),
  'POST /api/CaseWorkflowStatus': (fx) => ({
    params: {},
    body: { caseWorkflowGuid: fx.workflowGuid, ...statusBody() },
  }),
  'PUT /api/CaseWorkflowStatus/:guid': (fx) => ({ params: { guid: fx.statusGuid }, body: statusBody() }),
  'DELETE /api/CaseWorkflowStatus/:guid': (fx) => ({ params: { guid: fx.statusGuid } }),
  'POST /api/Invoke/EntityAnalysisModel/:guid': (fx) => ({
    params: { guid: fx.modelGuid },
    body: { transactionId: 'tx-1', account: { id: 'ACC-1' }, amount: 1 },
  }),
  'POST /api/Invoke/EntityAnalysisModel/:guid/Reprocess/:entryGuid': (fx) => ({
    params: { guid: fx.modelGuid, entryGuid: fx.entryGuid },
  }),
};

function statusBody(): Record<string, unknown> {
  return {
    name: name('Status'),
    priority: 3,
    enableNotification: true,
    notificationDestination: 'cases@example.test',
    notificationSubject: 'Case {CaseKeyValue}',
    notificationBody: 'Case {CaseKeyValue}\nneeds a look.',
    enableHttpEndpoint: true,
    httpEndpointUrl: 'https://callbacks.example.test/case?key={CaseKeyValue}',
    httpEndpointMethod: 'POST',
  };
}

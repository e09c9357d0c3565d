import { DataSource, MoreThan } from 'typeorm';
import { AdminEvent, AdminEventOutcome, AdminEvents, REFUSAL_ROWS_PER_ACTOR } from '@app/audit';
import { Permission } from '@app/access';
import { TenantRegistry } from '@app/identity';
import {
  concurrently,
  countOf,
  lastAdminEventId,
  refusalRows,
  refuseDirectly,
  sendRefused,
} from '../support/admin-refusals';
import { createUser, type CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { SQLITE_AND_POSTGRES } from '../support/databases';
import { startTestApp, TestApp } from '../support/test-app';

const RENAMES = 25;
const REFUSALS_OVER_HTTP = 600;
const REFUSALS_DIRECT = 12_000;

/**
 * Accepted changes are always recorded, each its own row in the change's transaction, whatever refusals flood
 * the trail at the same time: the bound on refusal rows never touches them.
 */
describe.each(SQLITE_AND_POSTGRES)(
  'an accepted change is always recorded during a refusal flood on %s',
  (provider) => {
    let t: TestApp;
    let admin: CreatedUser;
    let loud: CreatedUser;

    beforeAll(async () => {
      t = await startTestApp(provider);
      admin = await createUser(t.app, {
        permissions: [Permission.ReadWriteSecurityRole, Permission.ReadSecurityAudit],
      });
      loud = await createUser(t.app, {
        tenantGuid: admin.tenantGuid,
        permissions: [Permission.ReadSecurityAudit],
      });
    });
    afterAll(() => t.close());

    it(`${RENAMES} role renames among ${REFUSALS_OVER_HTTP + REFUSALS_DIRECT} refusals, 50 requests at a time: every rename has its row`, async () => {
      const before = await lastAdminEventId(t.app);
      const adminToken = (await signIn(t.url, admin.name, admin.password)).token;
      const loudToken = (await signIn(t.url, loud.name, loud.password)).token;
      // A rename every 25th request; the others refused.
      const total = REFUSALS_OVER_HTTP + RENAMES;
      const renamed: string[] = [];
      const statuses = await concurrently(total, 50, async (i) => {
        if (i % 25 !== 0) return sendRefused(t.url, loudToken, 'PUT /api/TenantRegistry/:guid');
        const name = `Renamed during the flood ${i}`;
        const res = await fetch(`${t.url}/api/RoleRegistry/${admin.roleGuid}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name }),
        });
        await res.arrayBuffer();
        if (res.status === 200) renamed.push(name);
        return res.status;
      });
      refuseDirectly(t.app, loud.actor, REFUSALS_DIRECT);
      expect([...statuses].sort()).toEqual([
        [200, RENAMES],
        [403, REFUSALS_OVER_HTTP],
      ]);
      await t.app.get(AdminEvents).flushRefusals();

      const applied = await t.app
        .get(DataSource)
        .getRepository(AdminEvent)
        .find({
          where: { Id: MoreThan(before), OutcomeId: AdminEventOutcome.Applied },
          order: { Id: 'ASC' },
        });
      const tenant = await t.app
        .get(DataSource)
        .getRepository(TenantRegistry)
        .findOneByOrFail({ Guid: admin.tenantGuid });
      expect(applied).toHaveLength(RENAMES);
      const newNames = applied.map((r) => (JSON.parse(r.Changes!) as { field: string; new: string }[])[0]);
      expect(new Set(newNames.map((c) => c.new))).toEqual(new Set(renamed));
      for (const row of applied)
        expect([row.ActorUserGuid, row.Action, row.TargetGuid, row.EventCount, row.ActorTenantName]).toEqual([
          admin.guid,
          'RoleRegistry.Update',
          admin.roleGuid,
          1,
          tenant.Name,
        ]);

      // The flood, meanwhile: bounded rows, every refusal counted.
      const refused = await refusalRows(t.app, before);
      expect(refused.length).toBeLessThanOrEqual(2 * REFUSAL_ROWS_PER_ACTOR);
      const events = t.app.get(AdminEvents);
      expect(countOf(refused) + events.unwrittenSinceStart['actor-bound']).toBe(
        REFUSALS_OVER_HTTP + REFUSALS_DIRECT,
      );
    });
  },
);

import 'reflect-metadata';
import type { DataSource } from 'typeorm';
import { rowsPerStatement } from '@app/database';
import { AdminEvent, UserLogin, UserLogout } from '@app/audit';
import { AdminEventRepository } from '../../libs/audit/src/admin-events/admin-event.repository';
import { ALL_PERMISSIONS } from '@app/access';
import { ActorService } from '@app/identity';
import { ApiKeyRepository } from '../../libs/api-keys/src/api-key.repository';
import { AuditRepository } from '../../libs/audit/src/audit.repository';
import { ArchiveRepository } from '../../libs/engine/src/archiver/archive.repository';
import { CaseRepository } from '../../libs/engine/src/case-creation/case.repository';
import { ConfigurationRepository } from '../../libs/engine/src/model/configuration.repository';
import { IdentityRepository } from '../../libs/identity/src/identity.repository';
import { SessionUserRepository } from '../../libs/identity/src/session-user.repository';
import { UserSecurityRepository } from '../../libs/identity/src/user-security.repository';
import { RecordedStatement, SqlServerRecorder } from '../support/sql-server-recorder';
import { expectSqlServerAccepts, ids, NOW, recordedSqlServer, sampleRow } from './recorded';

/** The identity, configuration, API key, audit and case repositories' statements (recorded.ts). */
describe('SQL Server statements, recorded without a server: the repositories', () => {
  const r = recordedSqlServer();
  const { recording } = r;
  let ds: DataSource;
  let recorder: SqlServerRecorder;
  let get: <T>(type: new (...args: never[]) => T) => T;
  beforeAll(() => {
    ({ ds, recorder, get } = r);
  });

  describe('identity', () => {
    it('binds every instant of the sign-in updates as datetime2, exactly', async () => {
      const repo = get(IdentityRepository);
      const security = get(UserSecurityRepository);
      const lastLogin = new Date('2026-11-22T09:59:58.123Z');
      const now = new Date(NOW);
      const statements = await recording(async () => {
        // The lockout with the lock's end chosen in the statement (the defaults: 5 min doubling to 1 h).
        await security.countFailedPassword(7, { allowed: 3, firstMs: 300_000, maximumMs: 3_600_000 }, now);
        await security.completeSignIn(7, 'hash', now, lastLogin);
        await security.completeSignIn(7, 'hash', now, null);
        await security.completeSignIn(7, 'hash', now);
        await security.completeExternalSignIn(7, now, lastLogin);
        await security.replacePassword(7, 'old', 'new', now, 'admin');
        await security.moveTokensValidFrom(7, now);
        await get(SessionUserRepository).findSessionUser('11111111-1111-4111-8111-111111111111');
        // The administrator's column-only writes and the forward-only password reset.
        await security.resetPassword(
          7,
          { passwordHash: 'new', expired: true, wirePasswordHash: false, updatedUser: 'admin' },
          now,
        );
        await repo.updateUser(7, {
          Email: 'a@example.com',
          Active: false,
          UpdatedDate: now,
          UpdatedUser: 'admin',
        });
        await security.unlockUser(7, now, 'admin');
        // If-Match on the POST actions: the version in the statement itself.
        await security.unlockUser(7, now, 'admin', 3);
        await security.moveTokensValidFrom(7, now, 3);
        await security.resetPassword(
          7,
          { passwordHash: 'new', expired: false, wirePasswordHash: undefined, updatedUser: 'admin' },
          now,
          3,
        );
        // A deactivation ends the sessions in its own statement; the users a change concerns.
        await security.deactivateUser(
          7,
          { Email: 'a@example.com', UpdatedDate: now, UpdatedUser: 'admin' },
          now,
        );
        await repo.userIdsOf({ roleId: 3 });
        await repo.userIdsOf({ tenantId: 2 });
        await repo.softDeleteUser(7, now, 'admin');
        await repo.updateTenant(2, { Name: 'T', UpdatedDate: now, UpdatedUser: 'admin' });
        await repo.softDeleteTenant(2, now, 'admin');
        await repo.updateRole(3, { Name: 'R', UpdatedDate: now, UpdatedUser: 'admin' });
        await repo.softDeleteRole(3, now, 'admin');
        await repo.countUsers();
        // A new user's name: its look-alikes among the live users (the skeleton key, 64 hex characters).
        await repo.findUserByNameSkeleton('0'.repeat(64));
      });
      expect(statements.some((s) => /"NameSkeleton" = @\d+/.test(s.sql))).toBe(true);
      // TokensValidFrom moves forward with a CASE (no GREATEST: SQL Server 2019 lacks it).
      expect(
        statements.some((s) => /"TokensValidFrom" = CASE WHEN "TokensValidFrom" IS NULL OR/.test(s.sql)),
      ).toBe(true);
      expectSqlServerAccepts(statements);
      // Sign-in state keeps the row's version (its ETag): none of these statements raises it.
      const signInState = statements.filter((s) =>
        /SET .*"(FailedPasswordCount|LastLoginDate|TokensValidFrom|PasswordLocked)"/.test(s.sql),
      );
      expect(signInState.length).toBeGreaterThan(0);
      for (const s of signInState.filter(
        (s) => !/"PasswordHash" = @\d+,/.test(s.sql) && !/"Active" = @/.test(s.sql),
      ))
        expect(s.sql).toMatch(/"Version" = "Version"/);
      // The lock's end: one parameter per consecutive lock (5, 10, 20, 40 min, then the 1 h cap), all datetime2.
      const lockout = statements.find((s) => /"PasswordLockedUntil" = CASE/.test(s.sql))!;
      expect(lockout.sql).toMatch(/WHEN "PasswordLockCount" = 3 THEN @\d+ ELSE @\d+ END/);
      const untils = lockout.parameters.filter((p) => p.type === 'datetime2').map((p) => p.value as Date);
      expect(untils.map((d) => d.getTime() - now.getTime())).toEqual(
        expect.arrayContaining([300_000, 600_000, 1_200_000, 2_400_000, 3_600_000]),
      );
      // If-Match: the version a condition of the statement.
      expect(statements.filter((s) => /AND "Version" = @\d+/.test(s.sql))).toHaveLength(3);
      // The single-use condition of the passcode step: the expected LastLoginDate, to the millisecond.
      const completing = statements.filter((s) => /AND "LastLoginDate" = @\d+/.test(s.sql));
      expect(completing).toHaveLength(2);
      for (const s of completing) {
        const [, n] = /AND "LastLoginDate" = @(\d+)/.exec(s.sql)!;
        expect(s.parameters[Number(n)]).toEqual({ name: n, type: 'datetime2', value: lastLogin });
      }
    });

    it('reads the actors of 2 100 users (an API key cache reload) in chunks within the limit', async () => {
      // Rows as TypeORM reads them back: each column aliased <Table>_<Column>.
      const aliased = (table: string, row: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(row).map(([k, v]) => [`${table}_${k}`, v]));
      const user = (Id: number) => ({
        Id,
        Guid: `g${Id}`,
        Name: `u${Id}`,
        TenantRegistryId: 1,
        RoleRegistryId: Id,
        Active: true,
        PasswordLocked: false,
        DeletedDate: null,
      });
      const inList = (s: RecordedStatement) => s.parameters.map((p) => Number(p.value));
      recorder.answer(/FROM "UserRegistry"/, (s) => inList(s).map((id) => aliased('UserRegistry', user(id))));
      recorder.answer(/FROM "RoleRegistryPermission"/, (s) =>
        inList(s).map((RoleRegistryId) =>
          aliased('RoleRegistryPermission', { Id: RoleRegistryId, RoleRegistryId, PermissionId: 1 }),
        ),
      );
      recorder.answer(/FROM "TenantRegistry"/, [
        aliased('TenantRegistry', { Id: 1, Guid: 't', Name: 't', Landlord: true, DeletedDate: null }),
      ]);
      let actors = new Map<number, unknown>();
      const statements = await recording(async () => {
        actors = await get(ActorService).actorsFor(ids(2100), 'api-key');
      });
      expectSqlServerAccepts(statements);
      expect(actors.size).toBe(2100);
    });

    it("writes an administrator's change and its AdminEvent row in one transaction", async () => {
      const mark = recorder.mark();
      await ds.transaction(async (tx) => {
        await get(IdentityRepository)
          .in(tx)
          .updateRole(3, { Name: 'Auditors', UpdatedDate: new Date(NOW), UpdatedUser: 'a' }, 2);
        await get(AdminEventRepository).insert(sampleRow(ds, AdminEvent, 1) as never, tx);
      });
      const events = recorder.since(mark);
      expect(events.map((e) => e.kind)).toEqual(['begin', 'statement', 'statement', 'commit']);
      const statements = recorder.statementsSince(mark);
      expect(statements[1].sql).toMatch(/INSERT INTO "AdminEvent"/);
      expectSqlServerAccepts(statements);
    });

    it("replaces a role's permissions in one transaction", async () => {
      const mark = recorder.mark();
      await get(IdentityRepository).transaction((tx) => tx.replacePermissions(3, [...ALL_PERMISSIONS]));
      const events = recorder.since(mark);
      expect(events.map((e) => e.kind)).toEqual(['begin', 'statement', 'statement', 'commit']);
      expectSqlServerAccepts(recorder.statementsSince(mark));
    });

    it('reads the permissions of 2 100 roles in chunks within the limit', async () => {
      const statements = await recording(() => get(IdentityRepository).permissionsOf(ids(2100)));
      expectSqlServerAccepts(statements);
      expect(statements.length).toBeGreaterThan(1);
    });
  });

  it('configuration: every id list of 2 100 is read in chunks within the limit', async () => {
    const repo = get(ConfigurationRepository);
    const statements = await recording(async () => {
      await repo.findWorkflowsByIds(ids(2100));
      await repo.findStatusesByIds(ids(2100));
      await repo.findStatus(ids(2100), '11111111-1111-4111-8111-111111111111');
    });
    expectSqlServerAccepts(statements);
  });

  it('the lists page by keyset (OFFSET … FETCH, Id above the cursor), a user search escapes [ and uses ESCAPE', async () => {
    const page = { limit: 10, after: 5 };
    const identity = get(IdentityRepository);
    const statements = await recording(async () => {
      await identity.pageUsers(7, 'a[b%_', page);
      await identity.pageUsers(undefined, null, null);
      await identity.pageRoles(7, page);
      await identity.pageAssignableRoles(7, [1, 2], page);
      await identity.pageAssignableRoles(undefined, [], page);
      await identity.pageTenants(page);
      await identity.findTenantsByIds(ids(2100));
      await identity.findRolesByIds(ids(2100));
      const configuration = get(ConfigurationRepository);
      await configuration.listModels(7, page);
      await configuration.pageXPaths(7, page);
      await configuration.pageRules(7, page);
      await configuration.pageWorkflows(7, page);
      await configuration.pageStatuses(7, 3, page);
      await configuration.pageStatuses(7, null, page);
      await get(ApiKeyRepository).listForUser(7, page);
    });
    expectSqlServerAccepts(statements);
    const paged = statements.filter((s) => /FETCH NEXT/.test(s.sql));
    expect(paged.length).toBe(12);
    for (const s of paged) expect(s.sql).toMatch(/"Id" > @\d+.* OFFSET 0 ROWS FETCH NEXT 11 ROWS ONLY$/);
    // every status of the tenant: its live workflows as a sub-select, one parameter for any number of them
    const statuses = statements.filter(
      (s) => /FROM "CaseWorkflowStatus"/.test(s.sql) && /SELECT "Id" FROM "CaseWorkflow"/.test(s.sql),
    );
    expect(statuses.length).toBe(2);
    for (const s of statuses) expect(s.sql).toMatch(/"TenantRegistryId" = @\d+ AND "DeletedDate" IS NULL\)/);
    // the roles a user administrator may give: live tenants and refused permissions as sub-selects
    const assignable = statements.filter((s) => /FROM "RoleRegistryPermission"/.test(s.sql));
    expect(assignable.length).toBe(2);
    for (const s of assignable) expect(s.sql).toMatch(/"PermissionId" IN \(@\d+, @\d+\)\)/);
    const search = statements.find((s) => /LIKE/.test(s.sql))!;
    expect(search.sql).toMatch(/"NormalizedName" LIKE @\d+ ESCAPE '\\'/);
    expect(search.parameters.map((p) => p.value)).toContain('%a\\[b\\%\\_%');
  });

  it('API keys, audit rows and cases: the ORM statements are T-SQL with datetime2 instants', async () => {
    const statements = await recording(async () => {
      await get(ApiKeyRepository).listActive();
      await get(ApiKeyRepository).revoke('11111111-1111-4111-8111-111111111111', new Date(NOW), 'admin');
      await get(AuditRepository).insertLogin(sampleRow(ds, UserLogin, 1) as never);
      await get(AuditRepository).insertLogout(sampleRow(ds, UserLogout, 1) as never);
      // A refusal row counting several: opened, its count raised (forward only); the actor's tenant's name.
      await get(AdminEventRepository).insertCounted(sampleRow(ds, AdminEvent, 1) as never);
      await get(AdminEventRepository).raiseCount(7, {
        count: 12,
        lastTargetGuid: '11111111-1111-4111-8111-111111111111',
        lastDate: new Date(NOW),
      });
      await get(AdminEventRepository).tenantName(3);
      await get(ArchiveRepository).updateInPlace(1, '{}', new Date('1600-01-01T00:00:00Z'), new Date(NOW));
      await get(ArchiveRepository).findByEntryGuid(1, '11111111-1111-4111-8111-111111111111');
    });
    expectSqlServerAccepts(statements);
  });

  it('case creation in batches: the open-case look-up and the MERGE upsert (UPDLOCK, HOLDLOCK), within the limits', async () => {
    const repo = get(CaseRepository);
    const keys = ids(600).map((i) => ({ CaseWorkflowId: 1, CaseKey: 'AccountId', CaseKeyValue: `A-${i}` }));
    const per = rowsPerStatement('mssql', 8);
    const statements = await recording(async () => {
      await repo.findOpen(keys);
      await repo.upsert(
        keys.slice(0, per + 1).map((k, i) => ({
          ...k,
          Guid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          CaseWorkflowStatusId: 2,
          Priority: 3,
          EntityAnalysisModelInstanceEntryGuid: '11111111-1111-4111-8111-111111111111',
          At: new Date(NOW),
        })),
      );
    });
    expectSqlServerAccepts(statements);
    const lookups = statements.filter((s) => s.sql.startsWith('SELECT'));
    expect(lookups.map((s) => s.parameters.length)).toEqual([1500, 300]);
    for (const s of lookups)
      expect(s.sql).toMatch(
        /^SELECT c\."Id", .* FROM \(VALUES \(@0, @1, @2\), .*\) AS k \(w, k, v\) JOIN "Case" c ON .*c\."ClosedDate" IS NULL$/s,
      );
    const merges = statements.filter((s) => s.sql.startsWith('MERGE'));
    expect(merges.map((s) => s.parameters.length / 8)).toEqual([per, 1]);
    for (const s of merges) {
      expect(s.sql).toMatch(/^MERGE "Case" WITH \(UPDLOCK, HOLDLOCK\) AS t/);
      expect(s.sql).toMatch(/WHEN MATCHED AND t."Priority" > s."Priority" THEN UPDATE SET/);
      expect(s.sql).toMatch(
        /OUTPUT inserted."Guid", inserted."CaseWorkflowId", inserted."CaseKey", inserted."CaseKeyValue";$/,
      );
      expect(s.parameters.filter((p) => p.type.startsWith('datetime2'))).toHaveLength(
        s.parameters.length / 8,
      );
    }
  });
});

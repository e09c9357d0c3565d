import { Agent } from 'node:http';
import request from 'supertest';
import { ApiKeyService } from '@app/api-keys';
import { Permission } from '@app/access';
// The repository itself: the gate holds node B's read of the revoked key.
import { ApiKeyRepository } from '../../libs/api-keys/src/api-key.repository';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';
import { probeKeyWhile, settlesWithin } from '../support/key-probe';
import { RedisServer } from '../support/redis-server';
import { waitFor } from '../support/spawn-server';
import { startTwoNodesSharingRedis, TestApp } from '../support/test-app';
import { gateBefore, openGates } from './gate';

/**
 * A revoked API key is never accepted again on any node once the revocation has answered: the acting node
 * answers only after every node subscribed on Redis has applied the revocation to its key set and said so
 * (ChangeAcknowledgements). Two PostgreSQL nodes with Redis, no periodic reload (one hour): only the message
 * can take the key out of node B's set. What happens when a node does not acknowledge in time:
 * libs/api-keys/src/change-acknowledgements.spec.ts.
 */
const CONCURRENT = 50;
jest.setTimeout(240_000);

describe('a revoked API key is refused on every node once the revocation has answered (two PostgreSQL nodes, Redis)', () => {
  let redis: RedisServer;
  let a: TestApp;
  let b: TestApp;
  let admin: CreatedUser;
  let adminToken: string;
  beforeAll(async () => {
    // The acknowledgements' time-out far longer than any test waits: the answer can only come from them.
    ({ redis, a, b } = await startTwoNodesSharingRedis({ ApiKeyChangeAckTimeoutMilliseconds: '60000' }));
    admin = await createUser(a.app, { permissions: [Permission.ReadWriteSecurityUser] });
    adminToken = (await signIn(a.url, admin.name, admin.password)).token;
  });
  afterEach(() => openGates());
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  const sessionWith = (node: TestApp, key: string) =>
    request(node.url).get('/api/Authentication/Session').set('x-api-key', key);
  const revoke = (guid: string) =>
    request(a.url).delete(`/api/UserRegistryApiKey/${guid}`).set('Authorization', `Bearer ${adminToken}`);

  /** A key of the admin's own user, accepted on both nodes. */
  async function keyOnBothNodes(name: string): Promise<{ key: string; guid: string }> {
    const created = await a.app
      .get(ApiKeyService)
      .create(admin.actor, { userRegistryGuid: admin.guid, name });
    for (const node of [a, b])
      await waitFor(
        async () => (await sessionWith(node, created.key)).status === 200,
        5000,
        'the key on both nodes',
      );
    return created;
  }

  it('deterministic: the revocation is not answered while node B has not applied it; B refuses the key right after', async () => {
    const { key, guid } = await keyOnBothNodes('held');
    const gate = gateBefore(b.app.get(ApiKeyRepository), 'findByGuid');
    const answer = revoke(guid).then((r) => r);
    await gate.reached;
    const answeredBeforeBApplied = await settlesWithin(answer, 3000);
    // Still in B's set meanwhile: the gate really holds B's change.
    const onBMeanwhile = (await sessionWith(b, key)).status;
    gate.open();
    expect((await answer).status).toBe(204);
    expect([(await sessionWith(b, key)).status, (await sessionWith(a, key)).status]).toEqual([401, 401]);
    expect({ answeredBeforeBApplied, onBMeanwhile }).toEqual({
      answeredBeforeBApplied: false,
      onBMeanwhile: 200,
    });
  });

  it(`measured: ${CONCURRENT} revocations at once on node A, each key asked back to back on node B; none accepted after its answer`, async () => {
    const keys = [];
    for (let i = 0; i < CONCURRENT; i++) keys.push(await keyOnBothNodes(`concurrent-${i}`));
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT * 2 });
    const path = `${b.url}/api/Authentication/Session`;
    try {
      const outcomes = await Promise.all(
        keys.map(async ({ key, guid }) => {
          const { answer, ...after } = await probeKeyWhile(agent, path, key, 401, () => revoke(guid));
          expect(answer.status).toBe(204);
          return after;
        }),
      );
      // Each key was asked after its answer (so the count below means something), and never accepted then.
      expect(outcomes.filter((o) => o.refusedAfter === 0)).toEqual([]);
      expect(outcomes.reduce((sum, o) => sum + o.acceptedAfter, 0)).toBe(0);
    } finally {
      agent.destroy();
    }
  });
});

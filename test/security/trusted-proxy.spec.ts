import { Agent } from 'node:http';
import request from 'supertest';
import { Permission } from '@app/access';
import { createUser, CreatedUser } from '../factories/identity.factory';
import { loginRows, setCookiesOf } from '../support/auth';
import { allUp, ForwardedHeaders, Haproxy, startHaproxy } from '../support/haproxy';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * Behind a balancer, the client address, scheme and host a node uses are the ones the balancer saw, never what
 * the client wrote in X-Forwarded-*: Express's own `trust proxy` (TrustProxy: a hop count, True meaning one, or
 * the balancers' addresses and ranges) reads the address hop by hop from X-Forwarded-For, and the scheme and host
 * from X-Forwarded-Proto and -Host as the balancer overwrote them (the shipped docker/haproxy.cfg). A balancer
 * that appends to the client's headers (HAProxy's `option forwardfor`, `add-header`) is trusted for
 * X-Forwarded-For only (TrustProxyHeaders), as is one that sets nothing else; trusted for all three, the
 * appended -Proto and -Host (two values) are believed for neither. Checked for the sign-in rate limit,
 * the UserLogin address, the cookie's CSRF check, the sign-in routes' cross-site check and the Secure cookie.
 */
jest.setTimeout(120_000);

/** The sign-in budget a minute per address: room for the tests before the rate-limit test. */
const LIMIT = 20;

const ALL_THREE = 'X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Host';

describe.each<[ForwardedHeaders, string, string]>([
  // A balancer that appends: the client's own -Proto and -Host come first, so only X-Forwarded-For is trusted.
  ['append', 'True', 'X-Forwarded-For'],
  ['append', '1', 'X-Forwarded-For'],
  ['append', '127.0.0.1', 'X-Forwarded-For'],
  ['append', '10.0.0.0/8, 127.0.0.1/32', 'X-Forwarded-For'],
  // The same balancer with the default TrustProxyHeaders: a -Proto or -Host with the client's value and the
  // balancer's is believed for neither (the node's own scheme and Host header instead).
  ['append', 'True', ALL_THREE],
  ['overwrite', 'True', ALL_THREE],
  ['overwrite', '10.0.0.0/8, 127.0.0.1/32', ALL_THREE],
  // A balancer that sets only X-Forwarded-For: the client's own -Proto and -Host reach the node unchanged.
  ['for-only', 'True', 'X-Forwarded-For'],
])(
  'behind HAProxy (%s forwarded headers), TrustProxy=%s, TrustProxyHeaders=%s',
  (forwarded, trustProxy, headers) => {
    let t: TestApp;
    let lb: Haproxy;
    let user: CreatedUser;
    beforeAll(async () => {
      t = await startTestApp('sqlite', {
        TrustProxy: trustProxy,
        TrustProxyHeaders: headers,
        SignInRateLimitPerMinute: String(LIMIT),
      });
      lb = await startHaproxy([{ name: 'node', port: Number(new URL(t.url).port) }], forwarded);
      await allUp(lb, ['node']);
      user = await createUser(t.app, { permissions: [Permission.ReadWriteSecurityRole] });
    });
    afterAll(async () => {
      lb.stop();
      await t.close();
    });

    /**
     * The client speaks from 127.0.0.2: not the balancer's own address (127.0.0.1, which the node trusts when
     * TrustProxy lists it), so the trusted chain ends where the real client begins.
     */
    const client = new Agent({ localAddress: '127.0.0.2' });
    afterAll(() => client.destroy());
    const viaBalancer = () => {
      const r = request(lb.url);
      const as = <T extends { agent(a: Agent): T }>(test: T) => test.agent(client);
      return {
        get: (path: string) => as(r.get(path)),
        post: (path: string) => as(r.post(path)),
      };
    };
    const lbOrigin = () => new URL(lb.url).origin;

    it('a forged X-Forwarded-Proto does not make the session cookie Secure over plain HTTP', async () => {
      const res = await signInThroughBalancer({ 'X-Forwarded-Proto': 'https' });
      expect(res.status).toBe(200);
      const cookie = setCookiesOf(res).find((c) => c.startsWith('authentication-jwt='));
      expect(cookie).toBeDefined();
      expect(cookie).not.toMatch(/;\s*Secure/i);
    });

    it('a forged X-Forwarded-Host does not make a cross-site cookie write same-origin', async () => {
      const signedIn = await signInThroughBalancer({});
      const cookie = `authentication-jwt=${signedIn.body.token as string}`;
      const forged = await viaBalancer()
        .post('/api/RoleRegistry')
        .set('Cookie', cookie)
        .set('X-Forwarded-Host', 'evil.example')
        .set('Origin', 'http://evil.example')
        .send({ name: `forged-${Date.now()}`, permissions: [] });
      expect(forged.status).toBe(403);
      expect(forged.body.type).toBe('urn:problem-type:csrf-origin');
      await viaBalancer()
        .post('/api/RoleRegistry')
        .set('Cookie', cookie)
        .set('Origin', lbOrigin())
        .send({ name: `same-origin-${Date.now()}`, permissions: [] })
        .expect(201);
    });

    it('a forged X-Forwarded-Host does not let another site sign the browser in (login CSRF)', async () => {
      const res = await viaBalancer()
        .post('/api/Authentication/ByUserNamePassword')
        .set('X-Forwarded-Host', 'evil.example')
        .set('Origin', 'http://evil.example')
        .send({ userName: user.name, password: user.password });
      expect(res.status).toBe(403);
    });

    // Last: it spends the balancer address's sign-in budget. One window may roll over while it runs, so more
    // than two windows' worth are sent: without a trusted client address not one would be refused.
    it('a client rotating X-Forwarded-For is still one address: rate-limited, and audited as the address the balancer saw', async () => {
      const sent = LIMIT * 2 + 5;
      const statuses: number[] = [];
      for (let i = 0; i < sent; i++) {
        const res = await viaBalancer()
          .post('/api/Authentication/ByUserNamePassword')
          .set('X-Forwarded-For', `198.51.100.${i + 1}`)
          .send({ userName: 'rotating-target', password: 'wrong-password' });
        statuses.push(res.status);
      }
      expect(statuses.filter((s) => s !== 401 && s !== 429)).toEqual([]);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(sent - 2 * LIMIT);
      const rows = await loginRows(t.app, 'rotating-target');
      expect(rows.length).toBe(statuses.filter((s) => s === 401).length);
      expect(new Set(rows.map((r) => r.RemoteIp))).toEqual(new Set(['127.0.0.2']));
    });

    /** A sign-in through the balancer (with these extra headers). */
    function signInThroughBalancer(headers: Record<string, string>): Promise<request.Response> {
      let req = viaBalancer().post('/api/Authentication/ByUserNamePassword');
      for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
      return req.send({ userName: user.name, password: user.password }).then((r) => r);
    }
  },
);

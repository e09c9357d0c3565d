import request from 'supertest';
import { listRoutes } from './support/routes';
import { startTestApp, TestApp } from './support/test-app';

/**
 * THE written list of anonymous routes. A route is anonymous only through @Public(); adding one here is a
 * security decision to be reviewed.
 */
const ANONYMOUS_ROUTES = new Set<string>([
  'GET /api/Ready', // readiness probe (credential optional: detail for a signed-in caller)
  'GET /api/Live', // liveness probe: the process answers (200 until it exits)
  'POST /api/Authentication/ByUserNamePassword', // sign-in creates a credential (spec: Credentials 2)
  'POST /api/Authentication/Passcode', // second step of sign-in: a passcode token and the passcode
  'POST /api/mfa', // the bundled mock second-factor endpoint (spec: Endpoints)
  'GET /api/Authentication/ByNegotiate', // Negotiate sign-in creates a credential (spec: Credentials 2)
  'POST /api/Authentication/WirePasswordHash', // which password form the browser must send
  'GET /api/Authentication/PasswordPublicKey', // RSA key for password transport
  'POST /api/Authentication/Logout', // always 200, deletes the cookies (spec: Logout behaviour 1)
  'GET /api/Authentication/Options', // which sign-in the Login page offers; the same for every caller
  'GET /Account/Logout', // the console's logout page: a confirmation button, a GET never logs out
  'GET /Account/Login', // the console's Login page; under OAuth a redirect to the provider
  'GET /api/Authentication/OAuth/Login', // starts OpenID Connect sign-in (404 unless OAuthAuthentication)
  'POST /api/Authentication/OAuth/Callback', // form_post callback, bound to the transaction cookie's state
  'GET /api/Authentication/OAuth/Callback', // query callback (OAuthForceGet), the same binding
]);

describe('route audit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('every anonymous route is on the written list, and every listed route exists', () => {
    const routes = listRoutes(t.app);
    expect(routes.length).toBeGreaterThan(10);
    const anonymous = routes
      .filter((r) => r.access.kind !== 'authenticated')
      .map((r) => `${r.method} ${r.path}`);
    expect(anonymous.sort()).toEqual([...ANONYMOUS_ROUTES].sort());
  });

  it('every other route answers 401 to an anonymous caller, with the Bearer challenge (RFC 9110, RFC 6750)', async () => {
    const protectedRoutes = listRoutes(t.app).filter((r) => r.access.kind === 'authenticated');
    for (const r of protectedRoutes) {
      const path = r.path.replace(/:[A-Za-z]+/g, '00000000-0000-4000-8000-000000000000');
      const m = r.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
      const res = await request(t.url)[m](path).send({});
      expect({
        route: `${r.method} ${r.path}`,
        status: res.status,
        challenge: res.headers['www-authenticate'],
      }).toEqual({
        route: `${r.method} ${r.path}`,
        status: 401,
        challenge: 'Bearer realm="decisioning-operations-service"',
      });
    }
  });
});

import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { FailureType } from '@app/audit';
import { OAUTH_CALLBACK_BODY_LIMIT, OAUTH_CALLBACK_PATH, OAUTH_LOGIN_PATH } from '@app/auth';
import { startTwoNodes, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { loginRows } from '../support/auth';
import { OidcBrowser } from '../support/oidc-browser';
import {
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  reserveOidcProvider,
  TestOidcProvider,
} from '../support/oidc-provider';

const FAILED = '/Account/Login?failed=1';

interface Balancer {
  url: string;
  /** `node path` of every request passed on, in order. */
  served: string[];
  close(): Promise<void>;
}

/**
 * A balancer in front of two nodes that sends the sign-in's start to `a` and every other request to `b`,
 * passing the Host header on unchanged (the nodes see one public origin, as behind a real balancer).
 */
async function splitBalancer(a: TestApp, b: TestApp): Promise<Balancer> {
  const served: string[] = [];
  const server = createServer((req, res) => {
    const [name, node] = (req.url ?? '').startsWith(OAUTH_LOGIN_PATH) ? ['a', a] : ['b', b];
    served.push(`${name} ${(req.url ?? '').split('?')[0]}`);
    const target = new URL(node.url);
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('OpenID Connect sign-in across two nodes (the transaction lives in the browser, not on a node)', () => {
  let a: TestApp;
  let b: TestApp;
  let idp: TestOidcProvider;
  let balancer: Balancer;
  beforeAll(async () => {
    idp = await reserveOidcProvider();
    [a, b] = await startTwoNodes({
      OAuthAuthentication: 'True',
      OAuthAuthority: idp.issuer,
      OAuthClientId: OIDC_CLIENT_ID,
      OAuthClientSecret: OIDC_CLIENT_SECRET,
    });
    balancer = await splitBalancer(a, b);
    await idp.start([`${balancer.url}${OAUTH_CALLBACK_PATH}`]);
  });
  afterAll(async () => {
    await balancer?.close();
    await a?.close();
    await b?.close();
    await idp?.close();
  });

  it('Login on one node, the form_post callback on the other: signed in, one success row', async () => {
    const u = await createUser(a.app);
    const browser = new OidcBrowser();
    const callback = await browser.signIn(
      `${balancer.url}/Account/Login?returnUrl=%2Fgrids`,
      u.name,
      OAUTH_CALLBACK_PATH,
    );
    expect(balancer.served).toContain(`a ${OAUTH_LOGIN_PATH}`);
    expect(balancer.served.filter((s) => s.endsWith(OAUTH_CALLBACK_PATH))).toEqual([
      `b ${OAUTH_CALLBACK_PATH}`,
    ]);
    expect(callback.method).toBe('POST');
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${balancer.url}/grids`);
    const token = browser.cookie(balancer.url, 'authentication-jwt');
    await request(a.url)
      .get('/api/Authentication/Session')
      .set('Cookie', `authentication-jwt=${token}`)
      .expect(200);
    expect(await loginRows(a.app, u.name)).toEqual([expect.objectContaining({ Failed: false })]);
  });

  it.each([
    [
      'a form over the body limit',
      'application/x-www-form-urlencoded',
      `code=c&pad=${'x'.repeat(OAUTH_CALLBACK_BODY_LIMIT)}`,
      /at most/,
    ],
    ['a JSON body', 'application/json', JSON.stringify({ code: 'c', state: 's' }), /must be a form/],
  ])(
    'refuses %s on the form_post callback unread: FailureTypeId 9, never a 500',
    async (_, type, body, message) => {
      const before = (await loginRows(b.app)).length;
      const answer = await request(b.url).post(OAUTH_CALLBACK_PATH).set('Content-Type', type).send(body);
      expect(answer.status).toBe(303);
      expect(answer.headers.location).toBe(FAILED);
      const rows = (await loginRows(b.app)).slice(before);
      expect(rows).toEqual([
        expect.objectContaining({ Failed: true, FailureTypeId: FailureType.OAuthLocalValidationFailure }),
      ]);
      expect(rows[0].FailureMessage).toMatch(message);
    },
  );
});

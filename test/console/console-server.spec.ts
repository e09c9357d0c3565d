import fs from 'node:fs';
import { readdirSync, readFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import request from 'supertest';
import { CONSOLE_BUILD_DIRECTORY, CONSOLE_GRID_PAGES } from '@app/console';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { signIn } from '../support/auth';

const INDEX = readFileSync(join(CONSOLE_BUILD_DIRECTORY, 'index.html'), 'utf8');
const SCRIPT = readdirSync(join(CONSOLE_BUILD_DIRECTORY, 'assets')).find((f) => /^index-.*\.js$/.test(f))!;
/** What a browser sends when the person opens a URL. */
const NAVIGATION = {
  'sec-fetch-mode': 'navigate',
  'sec-fetch-site': 'none',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
};

describe('the console, as the service serves it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(() => t.close());

  it('answers index.html for its pages, and the hashed assets as immutable files under /assets only', async () => {
    for (const path of ['/Account/Login', '/Account/Login?returnUrl=%2F', '/Account/Logout']) {
      const page = await request(t.url).get(path).expect(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toBe(INDEX);
    }
    const script = await request(t.url).get(`/assets/${SCRIPT}`).expect(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    // No history fallback outside the console's routes: not under /assets, not for unknown paths.
    for (const path of [
      '/assets/missing.js',
      '/assets/',
      '/assets/../package.json',
      '/Administration',
      '/nope',
    ]) {
      const res = await request(t.url).get(path).expect(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  it('answers the assets precompressed (brotli, else gzip) by Accept-Encoding, with Vary and the same caching', async () => {
    /** The answer exactly as sent (node:http: no client decompresses it). */
    const raw = (encoding: string | null, method = 'GET') =>
      new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = httpRequest(
          `${t.url}/assets/${SCRIPT}`,
          { method, headers: encoding === null ? {} : { 'accept-encoding': encoding } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      });
    const original = readFileSync(join(CONSOLE_BUILD_DIRECTORY, 'assets', SCRIPT));
    const cases: [string | null, string | undefined][] = [
      ['gzip, deflate, br, zstd', 'br'],
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['*', 'br'],
      ['identity', undefined],
      ['gzip;q=0, br;q=0', undefined],
      [null, undefined],
    ];
    for (const [accept, coding] of cases) {
      const res = await raw(accept);
      expect([accept, res.status, res.headers['content-encoding']]).toEqual([accept, 200, coding]);
      expect(res.headers.vary).toBe('Accept-Encoding');
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      const body = res.body;
      const decoded =
        coding === 'br' ? brotliDecompressSync(body) : coding === 'gzip' ? gunzipSync(body) : body;
      expect(decoded.equals(original)).toBe(true);
      if (coding) expect(body.length).toBeLessThan(original.length / 2);
      expect(Number(res.headers['content-length'])).toBe(body.length);
    }
    const head = await raw('br', 'HEAD');
    expect([head.status, head.headers['content-encoding'], head.body.length]).toEqual([200, 'br', 0]);
  });

  it('a browser navigation to a path that names nothing gets the console’s Not Found page (404), everything else the problem', async () => {
    for (const path of ['/nope', '/Administration', '/Security/Nothing', '/Administration/NoSuchGrid/x']) {
      const page = await request(t.url).get(path).set(NAVIGATION).expect(404);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.text).toBe(INDEX);
    }
    for (const [path, headers] of [
      ['/nope', {}],
      ['/nope', { accept: 'application/json' }],
      ['/nope', { 'sec-fetch-mode': 'cors', accept: 'text/html' }],
      ['/api/Nothing/Here', NAVIGATION],
      ['/assets/missing.js', NAVIGATION],
    ] as const) {
      const res = await request(t.url).get(path).set(headers).expect(404);
      expect([path, res.headers['content-type']]).toEqual([
        path,
        expect.stringMatching(/^application\/problem\+json/),
      ]);
    }
    await request(t.url)
      .post('/nope')
      .set(NAVIGATION)
      .expect(404)
      .expect('content-type', /problem\+json/);
  });

  it('never looks up a file for an API, explorer or page request; only /assets does', async () => {
    const stat = jest.spyOn(fs, 'stat');
    try {
      const u = await createUser(t.app);
      const s = await signIn(t.url, u.name, u.password);
      await request(t.url).get('/api/Ready');
      await request(t.url).get('/api/Authentication/Options');
      await request(t.url).get('/api/Authentication/Session').set('Cookie', s.cookie);
      await request(t.url).get('/api/Nothing/Here');
      await request(t.url).get('/swagger/json').set('Cookie', s.cookie);
      await request(t.url).get('/Account/Login');
      await request(t.url).get('/').set('Cookie', s.cookie);
      const lookups = () => stat.mock.calls.filter((c) => String(c[0]).startsWith(CONSOLE_BUILD_DIRECTORY));
      expect(lookups()).toEqual([]);
      await request(t.url).get(`/assets/${SCRIPT}`).expect(200);
      expect(lookups().length).toBeGreaterThan(0);
    } finally {
      stat.mockRestore();
    }
  });

  it('sends an anonymous browser navigation for / or the explorer to the Login page, with returnUrl', async () => {
    for (const [path, returnUrl] of [
      ['/', '/'],
      ['/swagger/index.html', '/swagger/index.html'],
      ['/swagger/', '/swagger/'],
    ]) {
      const res = await request(t.url).get(path).set(NAVIGATION).expect(302);
      expect(res.headers.location).toBe(`/Account/Login?returnUrl=${encodeURIComponent(returnUrl)}`);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    // An old browser without Sec-Fetch headers, preferring HTML, is a browser too.
    const old = await request(t.url).get('/').set('accept', NAVIGATION.accept).expect(302);
    expect(old.headers.location).toBe('/Account/Login?returnUrl=%2F');
    // A stale or bad cookie is the same as none.
    await request(t.url).get('/').set(NAVIGATION).set('Cookie', 'authentication-jwt=nope').expect(302);
  });

  it('keeps the 401 problem for API clients and for a page script', async () => {
    const clients: Record<string, string>[] = [
      {},
      { accept: '*/*' },
      { accept: 'application/json' },
      // a page's own fetch: Sec-Fetch-Mode says it is no navigation, whatever its Accept
      { 'sec-fetch-mode': 'cors', accept: 'text/html' },
    ];
    for (const headers of clients)
      for (const path of ['/', '/swagger/index.html', '/swagger/json', '/api/Authentication/Session']) {
        const res = await request(t.url).get(path).set(headers);
        expect({ path, headers, status: res.status, type: res.headers['content-type'] }).toEqual({
          path,
          headers,
          status: 401,
          type: 'application/problem+json; charset=utf-8',
        });
      }
    // A navigation to an API route is still an API request.
    await request(t.url).get('/api/Authentication/Session').set(NAVIGATION).expect(401);
    // Only reads are navigations.
    await request(t.url).post('/').set(NAVIGATION).expect(404);
  });

  it('serves the console home to a signed-in browser', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const res = await request(t.url).get('/').set(NAVIGATION).set('Cookie', s.cookie).expect(200);
    expect(res.text).toBe(INDEX);
  });

  it('the Administration and Security pages (part 2): index.html when signed in, the Login page for an anonymous browser; nothing else', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const pages = [
      ...CONSOLE_GRID_PAGES.map((grid) => `/Administration/${grid}`),
      '/Security/Users',
      `/Security/Users/${u.guid}`,
      '/Security/Roles',
      '/Security/Tenants',
    ];
    expect(pages).toHaveLength(13);
    for (const path of pages) {
      // Any signed-in user gets the page; what it shows comes from the API (403: "not permitted").
      const page = await request(t.url).get(path).set(NAVIGATION).set('Cookie', s.cookie).expect(200);
      expect([path, page.text, page.headers['cache-control']]).toEqual([path, INDEX, 'no-store']);
      const anonymous = await request(t.url).get(path).set(NAVIGATION).expect(302);
      expect(anonymous.headers.location).toBe(`/Account/Login?returnUrl=${encodeURIComponent(path)}`);
      await request(t.url).get(path).expect(401);
    }
    for (const path of [
      '/Administration/Nope',
      '/Administration/ArchiverWarning/x',
      '/Security',
      '/Security/Keys',
    ])
      await request(t.url).get(path).set('Cookie', s.cookie).expect(404);
    const bad = await request(t.url).get('/Security/Users/not-a-guid').set('Cookie', s.cookie).expect(400);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'guid' })]);
  });

  it('over plain HTTP: a strict CSP without upgrade-insecure-requests, and no HSTS', async () => {
    for (const path of ['/Account/Login', '/api/Ready', `/assets/${SCRIPT}`]) {
      const res = await request(t.url).get(path);
      const csp = String(res.headers['content-security-policy']);
      expect(csp.split(';')).toEqual([
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ]);
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    // The index page itself holds no inline script or style.
    expect(INDEX).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
  });

  it('the explorer keeps a policy of its own (swagger-ui has inline styles), still without inline script', async () => {
    const u = await createUser(t.app);
    const s = await signIn(t.url, u.name, u.password);
    const res = await request(t.url).get('/swagger/').set('Cookie', s.cookie).expect(200);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(csp).toMatch(/style-src 'self' 'unsafe-inline'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/upgrade-insecure-requests/);
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('security headers behind a TLS-terminating proxy (TrustProxy=True)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { TrustProxy: 'True' });
  });
  afterAll(() => t.close());

  it('adds upgrade-insecure-requests and HSTS only when the request really came over HTTPS', async () => {
    const https = await request(t.url).get('/Account/Login').set('x-forwarded-proto', 'https');
    expect(String(https.headers['content-security-policy'])).toMatch(/;upgrade-insecure-requests$/);
    expect(https.headers['strict-transport-security']).toBe('max-age=31536000');
    const http = await request(t.url).get('/Account/Login').set('x-forwarded-proto', 'http');
    expect(String(http.headers['content-security-policy'])).not.toMatch(/upgrade-insecure-requests/);
    expect(http.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('GET /api/Authentication/Options', () => {
  const keys = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });

  it.each([
    [
      'password',
      {},
      {
        mode: 'password',
        secondFactor: false,
        passwordEncryption: false,
        passwordPublicKeyPath: null,
        oauthLoginPath: null,
      },
    ],
    [
      'password with RSA transport and the second factor',
      {
        PasswordAsymmetricEncryption: 'True',
        PasswordAsymmetricEncryptionPublicKey: keys.publicKey,
        PasswordAsymmetricEncryptionPrivateKey: keys.privateKey,
        EnableMultifactorAuthentication: 'True',
        PasswordMinimumLength: '14',
        PasswordMaximumLength: '64',
      },
      {
        mode: 'password',
        secondFactor: true,
        passwordEncryption: true,
        passwordPublicKeyPath: '/api/Authentication/PasswordPublicKey',
        passwordMinimumLength: 14,
        passwordMaximumLength: 64,
        oauthLoginPath: null,
      },
    ],
    [
      'OpenID Connect (no second factor after it, spec: OAuth 6)',
      {
        OAuthAuthentication: 'True',
        OAuthAuthority: 'http://127.0.0.1:9',
        OAuthClientId: 'c',
        EnableMultifactorAuthentication: 'True',
      },
      {
        mode: 'oauth',
        secondFactor: false,
        passwordEncryption: false,
        passwordPublicKeyPath: null,
        oauthLoginPath: '/api/Authentication/OAuth/Login',
      },
    ],
  ] as const)('%s: anonymous, the same for every caller', async (_mode, env, expected) => {
    const t = await startTestApp('sqlite', env);
    try {
      const anonymous = await request(t.url).get('/api/Authentication/Options').expect(200);
      expect(anonymous.body).toEqual({ passwordMinimumLength: 12, passwordMaximumLength: 128, ...expected });
      // nothing per user: a signed-in caller (where sign-in exists) reads exactly the same
      if (expected.mode === 'password' && !expected.secondFactor) {
        const u = await createUser(t.app);
        const s = await signIn(t.url, u.name, u.password);
        const signedIn = await request(t.url)
          .get('/api/Authentication/Options')
          .set('Cookie', s.cookie)
          .expect(200);
        expect(signedIn.body).toEqual(anonymous.body);
      }
    } finally {
      await t.close();
    }
  });
});

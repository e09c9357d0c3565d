import request from 'supertest';
import { DataSource } from 'typeorm';
import { AuthenticationType, FailureType } from '@app/audit';
import { IdentityAuthService, UserRegistry } from '@app/identity';
import { MOCK_PASSCODE, OAUTH_CALLBACK_PATH, OAUTH_TRANSACTION_COOKIE, PasscodeTokens } from '@app/auth';
import { startTestApp, TestApp } from '../support/test-app';
import { TEST_PROVIDERS, type TestProvider } from '../support/databases';
import { createUser } from '../factories/identity.factory';
import { loginRows, setCookiesOf } from '../support/auth';
import { OidcBrowser } from '../support/oidc-browser';
import {
  OIDC_CLIENT_ID,
  OIDC_CLIENT_SECRET,
  reserveOidcProvider,
  TestOidcProvider,
} from '../support/oidc-provider';

const SESSION = '/api/Authentication/Session';
const FAILED = '/Account/Login?failed=1';

/** The service with OAuthAuthentication=True against a real oidc-provider on 127.0.0.1. */
async function startWithProvider(
  provider: TestProvider,
  env: Record<string, string> = {},
): Promise<{ t: TestApp; idp: TestOidcProvider }> {
  const idp = await reserveOidcProvider();
  const t = await startTestApp(provider, {
    OAuthAuthentication: 'True',
    OAuthAuthority: idp.issuer,
    OAuthClientId: OIDC_CLIENT_ID,
    OAuthClientSecret: OIDC_CLIENT_SECRET,
    ...env,
  });
  try {
    await idp.start([`${t.url}${OAUTH_CALLBACK_PATH}`]);
  } catch (error) {
    await t.close();
    throw error;
  }
  return { t, idp };
}

describe.each(TEST_PROVIDERS)('OpenID Connect sign-in on %s', (provider) => {
  let t: TestApp;
  let idp: TestOidcProvider;
  beforeAll(async () => {
    ({ t, idp } = await startWithProvider(provider));
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  const userRow = (guid: string) =>
    t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: guid });
  const signIn = (browser: OidcBrowser, login: string | undefined, returnUrl = '/') =>
    browser.signIn(
      `${t.url}/Account/Login?returnUrl=${encodeURIComponent(returnUrl)}`,
      login,
      OAUTH_CALLBACK_PATH,
    );

  it('Login page -> provider (code, PKCE S256, form_post) -> callback -> session cookies, row type 3, return URL', async () => {
    const u = await createUser(t.app);
    const browser = new OidcBrowser();
    // The provider's claim differs in case from the stored name: looked up like a typed user name.
    const callback = await signIn(browser, u.name.toUpperCase(), '/grids?page=2');

    const [loginPage, oauthLogin] = browser.visits;
    expect(loginPage.status).toBe(302);
    expect(loginPage.location).toBe(`${t.url}/api/Authentication/OAuth/Login?returnUrl=%2Fgrids%3Fpage%3D2`);
    expect(oauthLogin.status).toBe(302);
    const authorize = new URL(oauthLogin.location!);
    expect(authorize.origin + authorize.pathname).toBe(`${idp.issuer}/auth`);
    const q = Object.fromEntries(authorize.searchParams);
    expect(q).toMatchObject({
      client_id: OIDC_CLIENT_ID,
      response_type: 'code',
      scope: 'openid profile email',
      code_challenge_method: 'S256',
      response_mode: 'form_post',
      redirect_uri: `${t.url}${OAUTH_CALLBACK_PATH}`,
    });
    expect(q.code_challenge).toMatch(/^[\w-]{43}$/);
    expect(q.state).toMatch(/^[\w-]{20,}$/);
    expect(q.nonce).toMatch(/^[\w-]{20,}$/);
    const txCookie = oauthLogin.setCookies.find((c) => c.startsWith(`${OAUTH_TRANSACTION_COOKIE}=`))!;
    expect(txCookie).toMatch(/HttpOnly/i);
    expect(txCookie).toMatch(new RegExp(`Path=${OAUTH_CALLBACK_PATH}`));
    expect(txCookie).toMatch(/SameSite=Lax/i); // plain HTTP: None would need Secure
    expect(txCookie).toMatch(/Max-Age=600/);
    expect(txCookie).not.toContain(q.state); // sealed

    expect(callback.method).toBe('POST');
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${t.url}/grids?page=2`);
    expect(browser.cookie(t.url, OAUTH_TRANSACTION_COOKIE)).toBeUndefined(); // single use
    const token = browser.cookie(t.url, 'authentication-jwt');
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(browser.cookie(t.url, 'authentication-expiry')).toBeDefined();
    const session = await request(t.url)
      .get(SESSION)
      .set('Cookie', `authentication-jwt=${token}`)
      .expect(200);
    expect(session.body).toMatchObject({ userGuid: u.guid, userName: u.name, credential: 'cookie' });

    const rows = await loginRows(t.app, u.name.toUpperCase());
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      AuthenticationTypeId: AuthenticationType.OAuth,
      Failed: false,
      FailureTypeId: null,
      FailureMessage: null,
      TenantRegistryId: u.actor.tenantId,
    });
    expect((await userRow(u.guid)).LastLoginDate).not.toBeNull();
  });

  it('an unknown user: FailureTypeId 1, no session, back to the Login page, which does not loop', async () => {
    const browser = new OidcBrowser();
    const name = `nobody-${Date.now()}`;
    const callback = await signIn(browser, name);
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${t.url}${FAILED}`);
    expect(callback.setCookies.filter((c) => c.startsWith('authentication-'))).toEqual([]);
    expect(browser.cookie(t.url, 'authentication-jwt')).toBeUndefined();
    expect(await loginRows(t.app, name)).toEqual([
      expect.objectContaining({
        AuthenticationTypeId: AuthenticationType.OAuth,
        Failed: true,
        FailureTypeId: FailureType.UnknownUser,
        FailureMessage: null,
        TenantRegistryId: null,
      }),
    ]);
    // The console's Login page (no redirect to the provider: it says the sign-in failed, test/console).
    const page = await request(t.url).get(FAILED).expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers.location).toBeUndefined();
  });

  it('an inactive user: FailureTypeId 2 and no session', async () => {
    const u = await createUser(t.app);
    await t.app.get(DataSource).getRepository(UserRegistry).update({ Guid: u.guid }, { Active: false });
    const browser = new OidcBrowser();
    const callback = await signIn(browser, u.name);
    expect(callback.location).toBe(`${t.url}${FAILED}`);
    expect(browser.cookie(t.url, 'authentication-jwt')).toBeUndefined();
    expect(await loginRows(t.app, u.name)).toEqual([
      expect.objectContaining({
        Failed: true,
        FailureTypeId: FailureType.NotActive,
        TenantRegistryId: u.actor.tenantId,
      }),
    ]);
    expect((await userRow(u.guid)).LastLoginDate).toBeNull();
  });

  it('the user cancels at the provider (access_denied): FailureTypeId 8 with the provider message', async () => {
    const before = (await loginRows(t.app)).length;
    const browser = new OidcBrowser();
    const callback = await signIn(browser, undefined);
    expect(callback.method).toBe('POST');
    expect(callback.location).toBe(`${t.url}${FAILED}`);
    expect(browser.cookie(t.url, 'authentication-jwt')).toBeUndefined();
    const rows = (await loginRows(t.app)).slice(before);
    expect(rows).toEqual([
      expect.objectContaining({
        CreatedUser: '',
        AuthenticationTypeId: AuthenticationType.OAuth,
        Failed: true,
        FailureTypeId: FailureType.OAuthRemoteFailure,
        FailureMessage: 'access_denied: End-User aborted interaction',
      }),
    ]);
  });

  it('an ID token with no usable identity claim: FailureTypeId 7', async () => {
    const before = (await loginRows(t.app)).length;
    const callback = await signIn(new OidcBrowser(), `noclaim-${Date.now()}`);
    expect(callback.location).toBe(`${t.url}${FAILED}`);
    const rows = (await loginRows(t.app)).slice(before);
    expect(rows).toEqual([
      expect.objectContaining({ Failed: true, FailureTypeId: FailureType.OAuthNoUsableClaim }),
    ]);
    expect(rows[0].FailureMessage).toMatch(/preferred_username, email, upn, unique_name, name/);
  });

  it('a tampered state or a missing transaction cookie: refused, FailureTypeId 9, no session', async () => {
    const u = await createUser(t.app);
    const tampered = new OidcBrowser();
    const callback = await tampered.signIn(`${t.url}/Account/Login`, u.name, OAUTH_CALLBACK_PATH, (form) => {
      form.state = `${form.state}x`;
    });
    expect(callback.location).toBe(`${t.url}${FAILED}`);
    expect(tampered.cookie(t.url, 'authentication-jwt')).toBeUndefined();

    // A code and state without the browser's transaction cookie (login CSRF): refused before the provider.
    const before = (await loginRows(t.app)).length;
    const forged = await request(t.url)
      .post(OAUTH_CALLBACK_PATH)
      .type('form')
      .send({ code: 'stolen-code', state: 'attacker-state', iss: idp.issuer });
    expect(forged.status).toBe(303);
    expect(forged.headers.location).toBe(FAILED);
    expect(String(forged.headers['set-cookie'] ?? '')).not.toContain('authentication-jwt=ey');
    const rows = await loginRows(t.app);
    expect(rows.slice(before)).toEqual([
      expect.objectContaining({ Failed: true, FailureTypeId: FailureType.OAuthLocalValidationFailure }),
    ]);
    expect(rows.slice(before)[0].FailureMessage).toMatch(/transaction cookie/);
    expect(rows.filter((r) => r.CreatedUser === u.name)).toEqual([]);
    const stateRow = rows.slice(0, before).at(-1)!;
    expect(stateRow).toMatchObject({ Failed: true, FailureTypeId: FailureType.OAuthLocalValidationFailure });
    expect(stateRow.FailureMessage).toMatch(/state/i);
  });

  it('a database error while validating the user: FailureTypeId 10, no session, never a 500', async () => {
    const u = await createUser(t.app);
    const spy = jest
      .spyOn(t.app.get(IdentityAuthService), 'findSignInUser')
      .mockRejectedValueOnce(new Error('connection terminated'));
    const browser = new OidcBrowser();
    const callback = await signIn(browser, u.name);
    spy.mockRestore();
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${t.url}${FAILED}`);
    expect(browser.cookie(t.url, 'authentication-jwt')).toBeUndefined();
    expect(await loginRows(t.app, u.name)).toEqual([
      expect.objectContaining({
        Failed: true,
        FailureTypeId: FailureType.OAuthInternalError,
        FailureMessage: 'connection terminated',
      }),
    ]);
  });

  it.each(['//evil.example/x', 'https://evil.example/', '/\\evil.example'])(
    'the open-redirect guard lands %p on /',
    async (returnUrl) => {
      const u = await createUser(t.app);
      const callback = await signIn(new OidcBrowser(), u.name, returnUrl);
      expect(callback.location).toBe(`${t.url}/`);
    },
  );
});

describe('OpenID Connect sign-in with OAuthForceGet and OAuthForceRedirect', () => {
  let t: TestApp;
  let idp: TestOidcProvider;
  beforeAll(async () => {
    ({ t, idp } = await startWithProvider('sqlite', {
      OAuthForceGet: 'True',
      OAuthForceRedirect: '/Account/Logout',
      TrustProxy: 'True',
    }));
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  it('asks for the query response mode, takes the GET callback and ignores the propagated returnUrl', async () => {
    const u = await createUser(t.app);
    const browser = new OidcBrowser();
    const callback = await browser.signIn(
      `${t.url}/Account/Login?returnUrl=%2Fgrids`,
      u.name,
      OAUTH_CALLBACK_PATH,
    );
    expect(new URL(browser.visits[1].location!).searchParams.get('response_mode')).toBe('query');
    expect(callback.method).toBe('GET');
    expect(new URL(callback.url).searchParams.get('code')).toBeTruthy();
    expect(callback.location).toBe(`${t.url}/Account/Logout`);
    const token = browser.cookie(t.url, 'authentication-jwt');
    await request(t.url).get(SESSION).set('Cookie', `authentication-jwt=${token}`).expect(200);
    expect(await loginRows(t.app, u.name)).toEqual([
      expect.objectContaining({ AuthenticationTypeId: AuthenticationType.OAuth, Failed: false }),
    ]);
  });

  it('over HTTPS (a trusted proxy): the redirect_uri is the public one, the transaction cookie SameSite=None; Secure', async () => {
    const res = await request(t.url)
      .get('/api/Authentication/OAuth/Login')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'decisioning.example');
    expect(res.status).toBe(302);
    expect(new URL(res.headers.location).searchParams.get('redirect_uri')).toBe(
      `https://decisioning.example${OAUTH_CALLBACK_PATH}`,
    );
    const tx = setCookiesOf(res).find((c) => c.startsWith(`${OAUTH_TRANSACTION_COOKIE}=`))!;
    expect(tx).toMatch(/; Secure/i);
    expect(tx).toMatch(/SameSite=None/i);
  });

  it('refuses a form_post callback when the query mode was asked for (FailureTypeId 9)', async () => {
    const before = (await loginRows(t.app)).length;
    const browser = new OidcBrowser();
    // A genuine transaction cookie, then a POST instead of the GET the provider was told to use.
    await browser.request('GET', `${t.url}/api/Authentication/OAuth/Login`);
    const answer = await browser.request('POST', `${t.url}${OAUTH_CALLBACK_PATH}`, { code: 'c', state: 's' });
    expect(answer.status).toBe(303);
    expect(answer.location).toBe(`${t.url}${FAILED}`);
    const rows = (await loginRows(t.app)).slice(before);
    expect(rows).toEqual([
      expect.objectContaining({ Failed: true, FailureTypeId: FailureType.OAuthLocalValidationFailure }),
    ]);
    expect(rows[0].FailureMessage).toMatch(/response mode is query/);
  });
});

describe('OpenID Connect without a reachable provider, and with OAuth off', () => {
  it('a provider that cannot be reached: FailureTypeId 8 and the Login page, never a 500', async () => {
    const idp = await reserveOidcProvider(); // reserved, never started
    const t = await startTestApp('sqlite', {
      OAuthAuthentication: 'True',
      OAuthAuthority: idp.issuer,
      OAuthClientId: OIDC_CLIENT_ID,
      OAuthClientSecret: OIDC_CLIENT_SECRET,
    });
    try {
      const res = await request(t.url).get('/api/Authentication/OAuth/Login?returnUrl=/grids');
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(FAILED);
      expect(await loginRows(t.app)).toEqual([
        expect.objectContaining({
          AuthenticationTypeId: AuthenticationType.OAuth,
          Failed: true,
          FailureTypeId: FailureType.OAuthRemoteFailure,
        }),
      ]);
    } finally {
      await t.close();
    }
  });

  it('answers 404 on every OpenID Connect route when OAuthAuthentication is False (the Login page is the form)', async () => {
    const t = await startTestApp('sqlite');
    try {
      const login = await request(t.url).get('/Account/Login').expect(200);
      expect(login.headers['content-type']).toMatch(/^text\/html/);
      await request(t.url).get('/api/Authentication/OAuth/Login').expect(404);
      await request(t.url).get(OAUTH_CALLBACK_PATH).expect(404);
      await request(t.url).post(OAUTH_CALLBACK_PATH).type('form').send({ code: 'c' }).expect(404);
      expect(await loginRows(t.app)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('OpenID Connect with EnableMultifactorAuthentication=True (spec: OAuth 6 — the service adds no second factor)', () => {
  let t: TestApp;
  let idp: TestOidcProvider;
  beforeAll(async () => {
    // One database: the second factor is a setting's branch of the sign-in, the same on every database.
    ({ t, idp } = await startWithProvider('sqlite', { EnableMultifactorAuthentication: 'True' }));
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  it('signs in with a session at once (no 202, no passcode step): one success row of type 3; Passcode stays refused', async () => {
    expect(t.settings.EnableMultifactorAuthentication).toBe(true);
    const u = await createUser(t.app);
    const browser = new OidcBrowser();
    const callback = await browser.signIn(
      `${t.url}/Account/Login?returnUrl=%2Fgrids`,
      u.name,
      OAUTH_CALLBACK_PATH,
    );
    expect(callback.status).toBe(303);
    expect(callback.location).toBe(`${t.url}/grids`);
    const token = browser.cookie(t.url, 'authentication-jwt');
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    await request(t.url).get(SESSION).set('Cookie', `authentication-jwt=${token}`).expect(200);
    expect(
      (await loginRows(t.app, u.name)).map((r) => [r.AuthenticationTypeId, r.Failed, r.FailureTypeId]),
    ).toEqual([[3, false, null]]);

    // The passcode step is refused as under OAuth without the setting, even with a well-made token and the
    // bundled mock's passcode.
    const { token: passcodeToken } = t.app.get(PasscodeTokens).issue({
      userGuid: u.guid,
      typedName: u.name,
      authenticationType: AuthenticationType.OAuth,
      verifiedHash: null,
      lastLoginAt: (
        await t.app.get(DataSource).getRepository(UserRegistry).findOneByOrFail({ Guid: u.guid })
      ).LastLoginDate!.getTime(),
    });
    const passcode = await request(t.url)
      .post('/api/Authentication/Passcode')
      .send({ passcodeToken, passcode: MOCK_PASSCODE });
    expect(passcode.status).toBe(404);
    expect(setCookiesOf(passcode).filter((c) => c.startsWith('authentication-jwt='))).toEqual([]);
    expect(await loginRows(t.app, u.name)).toHaveLength(1);
  });
});

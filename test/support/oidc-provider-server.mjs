/*
 * A REAL OpenID Provider (oidc-provider 8) for the OpenID Connect tests, run in a child process by
 * test/support/oidc-provider.ts. oidc-provider is ESM with many ESM dependencies, which Jest's CommonJS
 * module loader cannot load without transforming all of them; a plain Node child process loads it natively.
 *
 * Configuration comes from the environment:
 *   OIDC_PORT            port to listen on (127.0.0.1)
 *   OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, OIDC_REDIRECT_URIS (space separated)
 * Accounts: any login name is accepted by the provider's development login form (devInteractions). The
 * account's claims: `sub` is the login; preferred_username and email are the login too, except for logins
 * that start with "noclaim", which carry only `sub` (for FailureTypeId 7).
 * Consent is granted automatically (loadExistingGrant), so a sign-in is one login form.
 * It prints "listening <issuer>" on stdout once it accepts connections.
 */
import Provider from 'oidc-provider';

const port = Number(process.env.OIDC_PORT);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: process.env.OIDC_CLIENT_ID,
      client_secret: process.env.OIDC_CLIENT_SECRET,
      redirect_uris: (process.env.OIDC_REDIRECT_URIS ?? '').split(' ').filter(Boolean),
      response_types: ['code'],
      grant_types: ['authorization_code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  pkce: { required: () => true },
  cookies: {
    keys: ['oidc-test-cookie-key-0123456789abcdef'],
    long: { httpOnly: true, sameSite: 'lax' },
    short: { httpOnly: true, sameSite: 'lax' },
  },
  claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email'] },
  // Put the scope's claims in the ID token itself (the service reads the ID token, not userinfo).
  conformIdTokenClaims: false,
  features: { devInteractions: { enabled: true } },
  async findAccount(_ctx, id) {
    return {
      accountId: id,
      async claims() {
        if (id.startsWith('noclaim')) return { sub: id };
        return { sub: id, preferred_username: id, email: `${id}@idp.test` };
      },
    };
  },
  async loadExistingGrant(ctx) {
    const accountId = ctx.oidc.session?.accountId;
    if (!accountId) return undefined;
    const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
    grant.addOIDCScope('openid profile email');
    await grant.save();
    return grant;
  },
});

provider.listen(port, '127.0.0.1', () => {
  process.stdout.write(`listening ${issuer}\n`);
});

import { bool, choice, int, SHIPPED_MFA_CLIENT_KEY, text, textWithDefault, UNITS } from './setting-kinds';

/** The spec's settings (identity schemes, sessions, keys, the second factor, thresholds). */
export const SPEC_SETTINGS = [
  text(
    'ApiHmacKey',
    'Secret for API key checksums (HMAC-SHA256), at least 32 characters. Generated once for embedded SQLite; required otherwise.',
    {
      secret: true,
    },
  ),
  text(
    'ApiHmacKeyPrevious',
    'The ApiHmacKey before a rotation: keys whose checksum it made are still accepted while it is set (new keys always use ApiHmacKey). See docs/SECURITY.md, Rotation.',
    {
      secret: true,
    },
  ),
  bool('OAuthAuthentication', false, 'Sign in through OpenID Connect (authorization code with PKCE).'),
  bool('NegotiateAuthentication', false, 'Sign in through Negotiate (Kerberos).'),
  text(
    'NegotiateKeytab',
    'Path of the service keytab for Negotiate; set as KRB5_KTNAME for the process at start. Required with NegotiateAuthentication unless KRB5_KTNAME is set.',
  ),
  text(
    'NegotiateServicePrincipal',
    'GSS host-based service name the Negotiate acceptor uses (e.g. HTTP@www.example.com). Unset: any service principal in the keytab.',
    {
      kind: {
        type: 'string',
        pattern: /^[A-Za-z0-9._-]+(@[A-Za-z0-9._-]+)?$/,
        patternText: 'a host-based service name such as HTTP@www.example.com',
      },
    },
  ),
  text(
    'NegotiateRealm',
    'Kerberos realm whose principals may sign in through Negotiate (e.g. EXAMPLE.COM). Unset: any realm the KDC vouches for.',
    {
      kind: {
        type: 'string',
        pattern: /^[^@\s]{1,255}$/,
        patternText: 'a Kerberos realm name such as EXAMPLE.COM',
      },
    },
  ),
  bool(
    'EnableMultifactorAuthentication',
    false,
    'One-time passcode after Username/Password or Negotiate sign-in.',
  ),
  text('OAuthAuthority', 'OpenID Provider issuer URL.'),
  text('OAuthClientId', 'OpenID Connect client id.'),
  text('OAuthClientSecret', 'OpenID Connect client secret.', { secret: true }),
  bool('OAuthForceGet', false, 'Use GET/query-string callbacks instead of form_post.'),
  text(
    'OAuthForceRedirect',
    'Local URL to redirect to after OpenID Connect sign-in, ignoring the propagated one.',
  ),
  text(
    'MultifactorAuthenticationEndpoint',
    'Second-factor endpoint; defaults to {base_url}/api/mfa, the bundled mock.',
    { kind: { type: 'url', protocols: ['http', 'https'] } },
  ),
  textWithDefault(
    'MultifactorAuthenticationApplicationId',
    'ServiceApplication',
    'Second-factor provider application id.',
  ),
  textWithDefault(
    'MultifactorAuthenticationClientKey',
    SHIPPED_MFA_CLIENT_KEY,
    'Second-factor provider client key; the mock only answers while it is at its shipped default.',
    { secret: true },
  ),
  bool(
    'OutboundHttpMfaAmCertificateBypass',
    false,
    'Disable certificate validation for the second-factor endpoint only.',
  ),
  text(
    'OutboundHttpMfaAmCertificateThumbprint',
    'Pin the second-factor endpoint to one certificate by SHA-1 thumbprint (hex).',
    {
      kind: { type: 'string', pattern: /^[0-9A-Fa-f:]{40,59}$/, patternText: 'a SHA-1 thumbprint in hex' },
    },
  ),
  int('PasswordAttempts', 3, 1, 1000, 'Consecutive wrong passwords allowed; one more locks the account.'),
  bool(
    'SessionCookie',
    true,
    'authentication-jwt is a browser-session cookie; otherwise it expires with the token.',
  ),
  choice(
    'SessionAbsoluteLifetimeInterval',
    UNITS,
    'n',
    'Unit of the absolute session lifetime: s, n (minutes), h, d.',
  ),
  int('SessionAbsoluteLifetimeIntervalValue', 720, 1, 1_000_000, 'Count of the absolute session lifetime.'),
  choice('RevokedSessionCheckInterval', UNITS, 's', 'Unit of the streaming-connection session re-check.'),
  int(
    'RevokedSessionCheckIntervalValue',
    30,
    1,
    1_000_000,
    'Count of the streaming-connection session re-check.',
  ),
  bool(
    'PasswordAsymmetricEncryption',
    false,
    'The browser encrypts the password with RSA-OAEP; both keys below are then required.',
  ),
  text('PasswordAsymmetricEncryptionPublicKey', 'RSA public key (PEM).'),
  text('PasswordAsymmetricEncryptionPrivateKey', 'RSA private key (PEM).', { secret: true }),
  bool('CsrfOriginCheck', true, 'Cookie-authenticated writes must be provably same-origin.'),
  bool(
    'EnableOpenTelemetry',
    false,
    'Export metrics (Prometheus scrape endpoint, and OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set).',
  ),
  int(
    'ArchiverWarnThresholdMilliseconds',
    10_000,
    0,
    86_400_000,
    'An Archiver stage slower than this raises an ArchiverWarning.',
  ),
  int(
    'CaseCreationWarnThresholdMilliseconds',
    10_000,
    0,
    86_400_000,
    'A case creation stage slower than this raises a CaseCreationWarning.',
  ),
] as const;

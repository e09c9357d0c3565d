import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { applyRequestRules } from './request-schemas';
import { declareIdempotency } from '@app/idempotency';
import { addOperationDescriptions } from './operation-descriptions';
import type { ResponseObject, SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { API_KEY_SCHEME, BEARER_SCHEME, COOKIE_SCHEME } from '@app/access';
import { HASHED_ETAG_HEADER, IF_NONE_MATCH_DESCRIPTION } from '@app/http-edge';
import { problemResponse, PROBLEM_TYPES } from '@app/problems';

/** The tags of the document, in the order the explorer shows them. */
const TAGS: [string, string][] = [
  ['Authentication', 'Sign-in (user name and password, Negotiate, the second factor), the session, logout'],
  [
    'UserRegistry',
    'Users of the caller’s tenant (a landlord: of every tenant), their passwords and sessions',
  ],
  ['UserRegistryApiKey', 'API keys: created for a user, shown once, revoked'],
  ['TenantRegistry', 'Tenants (landlord only)'],
  ['RoleRegistry', 'Roles and their permissions'],
  ['EntityAnalysisModel', 'Models, their request XPaths and activation rules'],
  ['CaseWorkflow', 'Case workflows'],
  ['CaseWorkflowStatus', 'Statuses of case workflows, their notifications and HTTP callbacks'],
  ['Invoke', 'Real-time invocation of a model (API keys; no cookie maintenance)'],
  ['Telemetry grids', 'Stage rollups, warnings and capture-queue health (landlord only)'],
  ['Audit grids', 'Sign-in and logout audit trails (CSV export)'],
  ['Stream', 'Server-sent events of this node'],
  ['Operations', "Readiness and liveness probes; this node's runtime (landlord only)"],
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

/**
 * The answers that come from the service's global layers rather than from a route's handler, added to each
 * operation they can happen on, from the same facts those layers act on (the operation's method, its body,
 * its path parameters, whether it takes a credential). An answer a route declares itself is kept as it is.
 *
 * - 304: a GET whose If-None-Match names the answer's ETag (or is `*`) is answered Not Modified
 *   (declareConditionalGet).
 * - 400: the input rules (docs/SECURITY.md) apply to every route: a repeated query parameter, members sent to
 *   a route that takes no body, U+0000 or a lone surrogate, and each route's own validation.
 * - 404: every path parameter names a record (a GUID); one that does not exist or is not visible is a 404.
 * - 413, 415: on every route that takes a body: the JSON body parser (1 MiB, UTF-8), and content of another
 *   media type (RequestInputRules).
 * - 403: the CSRF origin check on every cookie-authenticated write.
 * - 503: a route that takes a credential reads the database on every request (TokensValidFrom, the actor).
 */
function addCrossCuttingAnswers(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const responses = op.responses;
      const add = (status: number, description: string) => {
        if (!responses[status]) responses[status] = problemResponse(status, description);
      };
      const secured =
        (op.security ?? []).length > 0 && !(op.security ?? []).some((r) => !Object.keys(r).length);
      const write = method !== 'get' && method !== 'head';
      add(
        400,
        'The request is not valid (urn:problem-type:validation): `errors` names each refused field or parameter',
      );
      if (method === 'get') declareConditionalGet(op);
      if ((op.parameters ?? []).some((p) => 'in' in p && p.in === 'path'))
        add(404, 'No such record, or not visible to the caller (urn:problem-type:not-found)');
      if (op.requestBody) {
        add(413, 'The body is larger than 1 MiB');
        add(
          415,
          'The body is not JSON (Content-Type: application/json, UTF-8): a form, text or XML body is refused',
        );
      }
      if (secured && write) {
        const forbidden = responses[403] as { description: string } | undefined;
        const csrf =
          'a cookie-authenticated write that is not provably same-origin (urn:problem-type:csrf-origin)';
        if (forbidden) forbidden.description = `${forbidden.description}; or ${csrf}`;
        else add(403, `Refused: ${csrf}`);
      }
      if (secured)
        add(503, 'The database is not answering (urn:problem-type:service-unavailable); Retry-After');
    }
  }
}

type Operation = NonNullable<OpenAPIObject['paths'][string]['get']>;

/**
 * A GET's conditional answers (the conditional step of ServiceExpressAdapter.reply): a list (a JSON array)
 * carries a hashed ETag; every GET whose 200 carries an ETag (a record's version, that hash, a grid's) takes
 * If-None-Match; every GET may be answered 304 (If-None-Match `*` holds for any current answer).
 */
function declareConditionalGet(op: Operation): void {
  const ok = op.responses[200] as ResponseObject | undefined;
  const json = ok?.content?.['application/json']?.schema as SchemaObject | undefined;
  if (ok && json?.type === 'array') ok.headers = { ETag: HASHED_ETAG_HEADER, ...(ok.headers ?? {}) };
  const etag = ok?.headers?.ETag !== undefined;
  if (
    etag &&
    !(op.parameters ?? []).some((p) => 'in' in p && p.in === 'header' && p.name === 'If-None-Match')
  )
    op.parameters = [
      ...(op.parameters ?? []),
      {
        name: 'If-None-Match',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: IF_NONE_MATCH_DESCRIPTION,
      },
    ];
  if (!op.responses[304])
    op.responses[304] = {
      description:
        "Not Modified: If-None-Match names the current ETag of the answer (or is `*`), whatever the request's Cache-Control; no body",
      ...(etag ? { headers: { ETag: { description: 'The current ETag', schema: { type: 'string' } } } } : {}),
    };
}

/**
 * Strict parameters: a query parameter given with no value is refused (empty_value), so every text
 * parameter states it: `minLength` at least 1 (a GUID, an instant or an enum says it already).
 */
function refuseEmptyQueryValues(document: OpenAPIObject): void {
  for (const item of Object.values(document.paths))
    for (const method of METHODS)
      for (const p of item[method]?.parameters ?? []) {
        if (!('in' in p) || p.in !== 'query' || !p.schema || '$ref' in p.schema) continue;
        const schema = p.schema;
        if (
          schema.type === 'string' &&
          !schema.enum &&
          !schema.pattern &&
          !schema.format &&
          !schema.minLength
        )
          schema.minLength = 1;
      }
}

/** The OpenAPI document of the application: served at /swagger/json, and the console's typed client. */
export function createOpenApiDocument(app: INestApplication): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Decisioning operations service')
    .setDescription(
      [
        'Decisioning pipelines, their telemetry, and authentication, sessions and audit.',
        '',
        'Credentials: `x-api-key` (integrations), `Authorization: Bearer` (a session token) or the `authentication-jwt` cookie (the browser); the first present is the only one evaluated. Every 401 carries `WWW-Authenticate: Bearer realm="decisioning-operations-service"`.',
        '',
        `Errors: every error is an RFC 9457 problem (\`application/problem+json\`, schema ProblemDto). A refused request is a 400 whose \`errors\` name each field by its path. Problem types: ${Object.keys(
          PROBLEM_TYPES,
        )
          .map((t) => `\`${t}\``)
          .join(', ')}.`,
        '',
        'Input limits: JSON bodies up to 1 MiB (413 beyond), UTF-8 (415 otherwise), nested at most 64 levels; U+0000 and lone surrogates are refused anywhere, control characters in names; a repeated query parameter is refused; in a JSON body the last of two members with one name wins. A request head (request line and headers) over 16 KiB is refused before any route sees it, with a problem body: 414 when the request target is what is too long, 431 when the headers are; what does not parse as HTTP/1.1 (an unknown method, a malformed header, a Content-Length that is not a number) is a 400 problem; the connection is then closed. A request that goes wrong after its answer has started (a malformed chunk of a body) only has its connection closed.',
        '',
        'Rate limit: the sign-in routes (ByUserNamePassword and Passcode together, WirePasswordHash apart) take SignInRateLimitPerMinute requests a minute per client address; more are answered 429 with Retry-After. Every answer of those routes, the 429 included, carries the RateLimit fields of draft-ietf-httpapi-ratelimit-headers-10: `RateLimit-Policy: "sign-in";q=<SignInRateLimitPerMinute>;w=60` (`"wire-password-hash"` for WirePasswordHash) and `RateLimit: "sign-in";r=<requests left>;t=<seconds until the window resets>`.',
      ].join('\n'),
    )
    .setVersion('1')
    .setLicense('UNLICENSED', '')
    // Relative: right behind a balancer or a TLS-terminating proxy, whatever the host and scheme.
    .addServer('/')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'x-api-key' }, API_KEY_SCHEME)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
    .addCookieAuth(COOKIE_SCHEME, { type: 'apiKey', in: 'cookie', name: COOKIE_SCHEME }, COOKIE_SCHEME);
  for (const [name, description] of TAGS) builder.addTag(name, description);
  const config = builder.build();
  // No url: the service is not published under a licence.
  config.info.license = { name: 'UNLICENSED' };
  const document = SwaggerModule.createDocument(app, config);
  applyRequestRules(document, app);
  declareIdempotency(document);
  refuseEmptyQueryValues(document);
  addCrossCuttingAnswers(document);
  addOperationDescriptions(
    Object.values(document.paths).flatMap((item) => METHODS.flatMap((m) => (item[m] ? [item[m]] : []))),
  );
  return document;
}

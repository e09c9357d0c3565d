import { type ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import type { Settings } from '@app/config';
import { Lifecycle } from '@app/runtime';
import { ProblemFilter } from '@app/problems';
import {
  RequestInputGuard,
  RequestInputRules,
  declaredQueries,
  reservedMemberPath,
  unknownBodyMember,
  validationProblem,
} from '@app/input-rules';
import { ignoreUntrustedForwardedHeaders, listCursorKey, LIST_CURSOR_KEY, readCookies } from '@app/http-edge';
import { challengeBrowser, PrecedenceGuard } from '@app/auth';
import { HttpServerMetrics } from '@app/telemetry';
import { InvokeAdmission } from '@app/engine';
import { AdminEvents, watchWrites } from '@app/audit';
import { AppModule, AppOverrides } from './app.module';
import { EXPLORER_PATH, explorerRouter } from './explorer.middleware';
import { requestTimeouts, ServiceExpressAdapter } from './express-adapter';
import { createOpenApiDocument } from './openapi';
import { requestLines } from './request-logging.middleware';
import { requestMetrics } from './request-metrics.middleware';
import { bodyParsers } from './body-parsers.middleware';
import { corsOptions } from './cors';
import { contentSecurityPolicy, EXPLORER_CSP_DIRECTIVES } from './security-headers.middleware';
import { securityHeaderWriter } from './fast-paths/helmet-replay';
import { checkJsonReply } from './fast-paths/json-reply';

const LOGOUT_PATH = /^\/api\/authentication\/logout\/?$/i;

function isLogout(req: Request): boolean {
  return req.method === 'POST' && LOGOUT_PATH.test(req.path);
}

const OAUTH_CALLBACK = /^\/api\/authentication\/oauth\/callback\/?$/i;

/** The form_post callback's body is read by openid-client's Passport strategy itself (OAuthController). */
function isOAuthCallback(req: Request): boolean {
  return req.method === 'POST' && OAUTH_CALLBACK.test(req.path);
}

/** Options of every Nest application of the service (NestFactory, or a testing module in a benchmark). */
export const APPLICATION_OPTIONS = {
  bufferLogs: true,
  bodyParser: false,
  // Throw instead of process.exit(1): main.ts reports and exits; tests see the error.
  abortOnError: false,
} as const;

/**
 * Nest's ValidationPipe, refusing also the members class-transformer passes over before the whitelist sees them
 * (`__proto__`, `constructor`, `prototype`, at any depth: reservedMemberPath), as any unknown member.
 */
class ServiceValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' && this.toValidate(metadata)) {
      const reserved = reservedMemberPath(value);
      if (reserved !== undefined) throw unknownBodyMember(reserved);
    }
    return super.transform(value, metadata);
  }
}

/**
 * THE validation of request DTOs: unknown members refused, every refused field named by its path in a 400
 * validation problem (validationProblem).
 */
export function createValidationPipe(): ValidationPipe {
  return new ServiceValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: false,
    exceptionFactory: validationProblem,
  });
}

/** Builds the whole HTTP application; used by main.ts and by the end-to-end tests. */
export async function createApp(
  settings: Settings,
  overrides: AppOverrides = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(settings, overrides),
    new ServiceExpressAdapter(requestTimeouts(settings.RequestBodyTimeoutMilliseconds)),
    APPLICATION_OPTIONS,
  );
  configureApp(app, settings);
  return app;
}

/** Middleware, pipes and the API explorer on a created application. */
export function configureApp(app: NestExpressApplication, settings: Settings): void {
  app.useLogger(app.get(Logger));
  const lifecycle = app.get(Lifecycle);
  // The request metrics only when something exports them (EnableOpenTelemetry): otherwise nothing reads them.
  const metrics = settings.EnableOpenTelemetry ? app.get(HttpServerMetrics) : null;
  const admission = app.get(InvokeAdmission);
  useHttpMiddleware(app, settings, {
    draining: () => lifecycle.draining,
    metrics,
    shedInvoke: (req, res) => admission.atDoor(req, res),
    watchWrite: watchWrites(app.get(AdminEvents)),
  });
  checkJsonReply(app.getHttpAdapter().getInstance());
  // After the credential guard (APP_GUARD, applied when the app was created).
  app.useGlobalGuards(app.get(RequestInputGuard));
  // Strict parameters: each operation's query string is held to what the served document declares.
  app.get(RequestInputRules).useDocument(() => declaredQueries(createOpenApiDocument(app)));
  app.useGlobalPipes(createValidationPipe());
  setUpSwagger(app);
}

/** The steps of the front layer that come from the application's services (useHttpMiddleware). */
export interface FrontLayerSteps {
  /** The node is shutting down (Lifecycle). */
  draining: () => boolean;
  /** The request metrics, or null when nothing exports them (EnableOpenTelemetry off). */
  metrics: HttpServerMetrics | null;
  /** Overload: answers an Invoke it refuses before its body is read, and says so (InvokeAdmission.atDoor). */
  shedInvoke: (req: Request, res: Response) => boolean;
  /** Reports a write request's answer to AdminEvents (a refused administrative write is recorded). */
  watchWrite: (req: Request, res: Response) => void;
}

/**
 * What every request passes before routing, as ONE Express layer (each layer is a step of Express's router
 * walk for every request): the forwarded headers the balancer does not set cleared, its cookies parsed, its
 * log line set up, its request metrics (when exported), the security headers, the overload door, the
 * administrative write watch, the draining `Connection: close`, then the body parsers. Also what the HTTP
 * benchmark's "bare Nest with the service's middleware" rung runs.
 */
export function useHttpMiddleware(
  app: NestExpressApplication,
  settings: Settings,
  steps: FrontLayerSteps,
): void {
  app.disable('x-powered-by');
  // No ETag computed by Express: it would hash every body (a whole grid page included), and a hash says nothing
  // a client can send back to write safely. A versioned record's answer carries its row version as its ETag
  // (RecordAnswer); the console's files keep theirs.
  app.set('etag', false);
  // Signs and checks the lists' paging cursors (Paged): a key of its own, derived from JwtKey.
  app.set(LIST_CURSOR_KEY, listCursorKey(settings.JwtKey ?? ''));
  // TrustProxy: False, a number of hops (True: one) or the balancers' addresses. Express reads the client
  // address, scheme and host by it (req.ip, req.protocol, req.host); the headers the balancer does not set
  // (TrustProxyHeaders) are cleared first.
  app.set('trust proxy', settings.trustProxy);
  const ignoreUntrusted = ignoreUntrustedForwardedHeaders(settings.trustedForwardedHeaders);
  const startRequestLine = requestLines(settings);
  const writeSecurityHeaders = securityHeaderWriter();
  const measure = steps.metrics ? requestMetrics(steps.metrics, settings.trustProxy !== false) : null;
  const parseBody = bodyParsers();
  const { draining, shedInvoke, watchWrite } = steps;
  // Only with CorsAllowedOrigins: one more layer, before this one, that answers no CORS request by itself.
  const cors = corsOptions(settings.CorsAllowedOrigins);
  if (cors) app.enableCors(cors);
  app.use((req: Request, res: Response, next: NextFunction) => {
    ignoreUntrusted(req);
    readCookies(req);
    startRequestLine(req, res);
    if (measure) measure(req, res);
    writeSecurityHeaders(req, res);
    // An Invoke refused before its body is read: counted and summarised, no request line.
    if (shedInvoke(req, res)) return;
    watchWrite(req, res);
    // Shutting down: every answer closes its connection, so kept-alive clients reconnect to another node.
    if (draining()) res.setHeader('Connection', 'close');
    // Logout needs no body and always answers 200 (spec: Logout behaviour 1): a body it would not read must
    // not turn it into a 400 or 413.
    if (isLogout(req) || isOAuthCallback(req)) next();
    else parseBody(req, res, next);
  });
}

/**
 * The API explorer at /swagger/index.html (and /swagger/), its document at /swagger/json and /swagger/yaml,
 * with the three security schemes. Served to authenticated callers only: an anonymous browser navigation is
 * sent to the Login page, any other caller gets the same 401 problem as any protected route. Its page has its
 * own policy (swagger-ui sets inline styles), still with no inline script.
 */
function setUpSwagger(app: NestExpressApplication): void {
  // The same precedence (and strategies) as every route: the explorer is not a back door.
  const guard = app.get(PrecedenceGuard);
  const filter = new ProblemFilter();
  app.use([EXPLORER_PATH, `${EXPLORER_PATH}/*path`], (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Content-Security-Policy', contentSecurityPolicy(EXPLORER_CSP_DIRECTIVES, req.secure));
    guard.resolve(req, res).then(
      () => next(),
      (err: unknown) => {
        const { problem, headers } = filter.toProblem(err, req);
        if (challengeBrowser(req, res, problem.status)) return;
        res
          .set(headers)
          .status(problem.status)
          .type('application/problem+json')
          .send(JSON.stringify(problem));
      },
    );
  });
  // /swagger without its slash: the page's relative references need the folder.
  app.use(EXPLORER_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' && req.originalUrl.split('?')[0] === EXPLORER_PATH)
      res.redirect(302, `${EXPLORER_PATH}/index.html`);
    else next();
  });
  app.use(EXPLORER_PATH, explorerRouter());
  SwaggerModule.setup(EXPLORER_PATH.slice(1), app, () => createOpenApiDocument(app), {
    ui: false,
    jsonDocumentUrl: `${EXPLORER_PATH.slice(1)}/json`,
    yamlDocumentUrl: `${EXPLORER_PATH.slice(1)}/yaml`,
  });
}

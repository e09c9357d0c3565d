import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { json, urlencoded } from 'express';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import type { Settings } from '@app/config';
import {
  bodyParserProblem,
  contentSecurityPolicy,
  EXPLORER_CSP_DIRECTIVES,
  isForm,
  isJson,
  Lifecycle,
  markSuspectBody,
  ProblemException,
  ProblemFilter,
  RequestInputGuard,
  parseCookiesOnRead,
  scanJsonBody,
  securityHeaderWriter,
  validationProblem,
} from '@app/common';
import { challengeBrowser, PrecedenceGuard } from '@app/auth';
import { AppModule, AppOverrides } from './app.module';
import { EXPLORER_PATH, explorerRouter } from './explorer.middleware';
import { ServiceExpressAdapter } from './express-adapter';
import { createOpenApiDocument } from './openapi';
import { requestLines } from './request-logging.middleware';

/** Largest request body accepted (Invoke: any JSON up to 1 MiB); form bodies 64 KiB. */
export const BODY_LIMIT = '1mb';
export const FORM_BODY_LIMIT = '64kb';

const LOGOUT_PATH = /^\/api\/authentication\/logout\/?$/i;

function isLogout(req: Request): boolean {
  return req.method === 'POST' && LOGOUT_PATH.test(req.path);
}

function jsonCharsetProblem(): ProblemException {
  return new ProblemException(415, 'Unsupported Media Type', 'A JSON body must be UTF-8 (charset=utf-8).');
}

/** Options of every Nest application of the service (NestFactory, or a testing module in a benchmark). */
export const APPLICATION_OPTIONS = {
  bufferLogs: true,
  bodyParser: false,
  // Throw instead of process.exit(1): main.ts reports and exits; tests see the error.
  abortOnError: false,
} as const;

/**
 * THE validation of request DTOs: unknown members refused, every refused field named by its path in a 400
 * validation problem (validationProblem).
 */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
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
    new ServiceExpressAdapter(),
    APPLICATION_OPTIONS,
  );
  configureApp(app, settings);
  return app;
}

/** Middleware, pipes and the API explorer on a created application. */
export function configureApp(app: NestExpressApplication, settings: Settings): void {
  app.useLogger(app.get(Logger));
  const lifecycle = app.get(Lifecycle);
  useHttpMiddleware(app, settings, () => lifecycle.draining);
  // After the credential guard (APP_GUARD, applied when the app was created).
  app.useGlobalGuards(app.get(RequestInputGuard));
  app.useGlobalPipes(createValidationPipe());
  setUpSwagger(app);
}

/**
 * What every request passes before routing, as ONE Express layer (each layer is a step of Express's router
 * walk for every request): its log line set up, the security headers, the draining `Connection: close`, then
 * the body parsers. Cookies are parsed when first read (parseCookiesOnRead). Also what the HTTP benchmark's
 * "bare Nest with the service's middleware" rung runs.
 */
export function useHttpMiddleware(
  app: NestExpressApplication,
  settings: Settings,
  draining: () => boolean,
): void {
  app.disable('x-powered-by');
  // No ETag on the API's answers: they are live figures and session state, never cached (the console's
  // fetches say no-store), so Express's SHA-1 of every body (a whole grid page included) bought nothing;
  // an If-None-Match could only have turned a live answer into a 304. The console's files keep theirs.
  app.set('etag', false);
  app.set('trust proxy', settings.TrustProxy);
  parseCookiesOnRead(app.getHttpAdapter().getInstance().request);
  const startRequestLine = requestLines(settings);
  const writeSecurityHeaders = securityHeaderWriter();
  const parseBody = bodyParsers();
  app.use((req: Request, res: Response, next: NextFunction) => {
    startRequestLine(req, res);
    writeSecurityHeaders(req, res);
    // Shutting down: every answer closes its connection, so kept-alive clients reconnect to another node.
    if (draining()) res.setHeader('Connection', 'close');
    // Logout needs no body and always answers 200 (spec: Logout behaviour 1): a body it would not read must
    // not turn it into a 400 or 413.
    if (isLogout(req)) next();
    else parseBody(req, res, next);
  });
}

/**
 * JSON, then form bodies. Our own parsers, so their errors become problems with our wording before Nest
 * rewraps them. The JSON body's raw bytes are scanned once before parsing (issue 14): nesting deeper than
 * MAX_JSON_DEPTH and bytes that are not UTF-8 are refused here; an escape of U+0000 or of a surrogate marks the
 * request, and RequestInputGuard names the field once the route is known (after the credential guard). A request
 * without a body passes both untouched (body-parser's own check).
 */
function bodyParsers(): (req: Request, res: Response, next: NextFunction) => void {
  const jsonParser = json({
    type: (req) => isJson(req as Request),
    limit: BODY_LIMIT,
    verify: (req: Request, _res: Response, body: Buffer, encoding: string) => {
      // RFC 8259 8.1: JSON exchanged between systems is UTF-8 (body-parser would also take UTF-16 and 32).
      if (!/^utf-?8$/i.test(encoding)) throw jsonCharsetProblem();
      if (scanJsonBody(body)) markSuspectBody(req);
    },
  });
  const formParser = urlencoded({
    type: (req) => isForm(req as Request),
    limit: FORM_BODY_LIMIT,
    extended: false,
  });
  const problemOf = (err: unknown) => (err ? (bodyParserProblem(err, true) ?? err) : undefined);
  return (req, res, next) =>
    jsonParser(req, res, (err?: unknown) =>
      err ? next(problemOf(err)) : formParser(req, res, (formErr?: unknown) => next(problemOf(formErr))),
    );
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

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/** The parts of an OpenAPI 3.0 document this checker reads. */
export interface OpenApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
}
interface Operation {
  operationId?: string;
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

interface Route {
  method: string;
  pattern: RegExp;
  /** Literal segments first: /api/RoleRegistry/Permissions before /api/RoleRegistry/{guid}. */
  literals: number;
  operation: Operation;
  operationId: string;
}

/** A response checked against the document: its operation, status and media type, and what was wrong. */
export interface ResponseViolation {
  request: string;
  operationId: string;
  status: number;
  contentType: string;
  problems: string[];
}

function routesOf(document: OpenApiDocument): Route[] {
  const routes: Route[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const operation = op as Operation;
      const segments = path.split('/');
      routes.push({
        method: method.toUpperCase(),
        pattern: new RegExp(
          `^${segments.map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`,
          // Express matches paths case-insensitively, as the service's routes are.
          'i',
        ),
        literals: segments.filter((s) => !/^\{.+\}$/.test(s)).length,
        operation,
        operationId: operation.operationId ?? `${method} ${path}`,
      });
    }
  }
  return routes.sort((a, b) => b.literals - a.literals);
}

const JSON_MEDIA = /^application\/(?:[\w.+-]+\+)?json$/i;

/**
 * Checks answers against an OpenAPI document: the operation (by method and path) must declare the status,
 * the status its content type, and a JSON answer must match that media type's schema (Ajv, with formats).
 * Answers of paths the document does not describe (the console's pages, the explorer, unknown routes) are
 * not checked; CSV, event-stream and HTML answers are checked by content type only.
 */
export class OpenApiResponseChecker {
  private readonly ajv: Ajv;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly document: OpenApiDocument) {
    // OpenAPI 3.0 schemas: `nullable`, `example` and friends are not JSON Schema keywords to refuse.
    this.ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
    addFormats(this.ajv);
    this.ajv.addSchema({ components: document.components ?? {} }, 'openapi');
    this.routes = routesOf(document);
  }

  /** The violations of one answer; [] when it matches the document or is not described by it. */
  /** `body` null: too long to keep (over 8 MiB), checked by status and type only. */
  check(
    method: string,
    url: string,
    status: number,
    contentType: string,
    body: Buffer | null,
  ): ResponseViolation[] {
    const path = url.split('?')[0];
    const route = this.routes.find((r) => r.method === method && r.pattern.test(path));
    if (!route) return [];
    const problems: string[] = [];
    const declared = route.operation.responses[String(status)] ?? route.operation.responses.default;
    const media = contentType.split(';')[0].trim().toLowerCase();
    const violation = () => ({
      request: `${method} ${url}`,
      operationId: route.operationId,
      status,
      contentType,
      problems,
    });
    if (!declared) {
      problems.push(`status ${status} is not declared`);
      return [violation()];
    }
    const content = declared.content ?? {};
    if (!media) {
      if ((body === null || body.length) && Object.keys(content).length)
        problems.push('a body without a content type');
      return problems.length ? [violation()] : [];
    }
    const mediaKey = Object.keys(content).find((k) => k.toLowerCase() === media);
    if (!mediaKey) {
      problems.push(
        `content type ${media} is not declared (declared: ${Object.keys(content).join(', ') || 'none'})`,
      );
      return [violation()];
    }
    const schema = content[mediaKey].schema;
    if (!JSON_MEDIA.test(media) || schema === undefined || body === null) return [];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      problems.push('the body is not JSON');
      return [violation()];
    }
    const validate = this.validator(`${route.operationId} ${status} ${mediaKey}`, schema);
    if (!validate(parsed))
      for (const e of validate.errors ?? [])
        problems.push(`${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
    return problems.length ? [violation()] : [];
  }

  private validator(key: string, schema: unknown): ValidateFunction {
    let v = this.validators.get(key);
    if (!v) {
      // The document's references (#/components/schemas/X) resolve in the document added as `openapi`.
      const rebased = JSON.parse(
        JSON.stringify(schema).replace(/"#\/components\//g, '"openapi#/components/'),
      ) as object;
      v = this.ajv.compile(rebased);
      this.validators.set(key, v);
    }
    return v;
  }

  /**
   * Checks every answer the HTTP server sends from now on, collecting the violations in `into`. The body is
   * captured as it is written (streams included); the check runs when the answer has been sent.
   */
  watch(server: Server, into: ResponseViolation[]): void {
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      const method = req.method ?? 'GET';
      const url = req.url ?? '/';
      const chunks: Buffer[] = [];
      let size = 0;
      let tooLong = false;
      const keep = (chunk: unknown, encoding?: unknown) => {
        if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
        // At most 8 MiB kept; a longer answer (a 100 000-row grid, a CSV, a long event stream) is checked by
        // status and type only.
        if (tooLong) return;
        const b = Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(
              chunk as string,
              typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
            );
        size += b.length;
        if (size > 8 * 1024 * 1024) {
          tooLong = true;
          chunks.length = 0;
          return;
        }
        chunks.push(b);
      };
      const write = res.write.bind(res) as (...args: unknown[]) => boolean;
      const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
      res.write = ((...args: unknown[]) => {
        keep(args[0], args[1]);
        return write(...args);
      }) as typeof res.write;
      res.end = ((...args: unknown[]) => {
        keep(args[0], args[1]);
        return end(...args);
      }) as typeof res.end;
      res.once('finish', () => {
        if (method === 'HEAD') return;
        const type = String(res.getHeader('content-type') ?? '');
        const body = tooLong ? null : Buffer.concat(chunks);
        into.push(...this.check(method, url, res.statusCode, type, body));
      });
    });
  }
}

const checkers = new Map<string, OpenApiResponseChecker>();

/** One checker per distinct document (every test app of a run serves the same one: compiled once). */
export function responseChecker(document: OpenApiDocument): OpenApiResponseChecker {
  const key = JSON.stringify(document);
  let c = checkers.get(key);
  if (!c) {
    c = new OpenApiResponseChecker(document);
    checkers.set(key, c);
  }
  return c;
}

/** The violations as a failure message. */
export function describeViolations(violations: readonly ResponseViolation[]): string {
  return violations
    .slice(0, 20)
    .map((v) => `${v.request} → ${v.status} ${v.contentType} (${v.operationId}): ${v.problems.join('; ')}`)
    .join('\n');
}

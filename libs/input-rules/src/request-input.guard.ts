import { CanActivate, ExecutionContext, Injectable, SetMetadata } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import {
  refusedText,
  repeatedParameter,
  undecodableQueryParameter,
  unexpectedBodyMember,
  unsupportedMediaType,
} from './request-input';
import { carriesOtherThanJson } from './media-type';
import { RequestRefusal } from '@app/problems';
import { checkDeclaredQuery, type DeclaredQueries } from './query-parameters';
import { perRoute } from './route-memo';

/** Where @nestjs/swagger keeps a route's @ApiOperation (its operationId names it in the document). */
const API_OPERATION = 'swagger/apiOperation';

const RAW_INPUT = 'raw-input';
const LATE_INPUT_CHECK = 'late-input-check';

/**
 * The handler reads the request itself and answers every refusal its own way (the OpenID Connect callbacks:
 * each failure is a UserLogin row and a redirect to the Login page, spec: OAuth rule 3), so the input rules
 * below are left to it.
 */
export const RawInput = () => SetMetadata(RAW_INPUT, true);

/**
 * The route checks its input only after its own guards (LateRequestInputGuard last among them): the sign-in
 * routes, so a body refused here is rate-limited, and recorded, like every other attempt.
 */
export const CheckInputAfterRouteGuards = () => SetMetadata(LATE_INPUT_CHECK, true);

/** Requests whose JSON body holds an escape of U+0000 or of a surrogate (set by the body parser's scan). */
const suspectBodies = new WeakSet<Request>();

/** Called from the JSON body parser's verify hook when scanJsonBody found such an escape. */
export function markSuspectBody(request: Request): void {
  suspectBodies.add(request);
}

interface RouteInput {
  raw: boolean;
  late: boolean;
  takesBody: boolean;
  /** The query parameters the handler reads: all of them (`@Query()`), or these names. */
  query: 'all' | string[];
  /** The route's operation in the served document (null: not in it, e.g. the console's pages). */
  operationId: string | null;
}

/**
 * What becomes data of a route is refused when it holds U+0000 or a lone surrogate, when a query parameter
 * it reads is repeated or not UTF-8, or when a route that takes no body is sent members (the input limits); a route
 * that takes a body refuses content that is not JSON with a 415 (what it would be read as is not JSON). Path
 * parameters are all GUIDs: ParseGuidPipe refuses the rest. The body's depth and UTF-8 were checked by the
 * body parser (scanJsonBody), before anything else.
 *
 * A guard, not an interceptor: on Node 20 each Nest interceptor costs tens of microseconds a request
 * (AsyncResource.bind), measurable on Invoke. RequestInputGuard is global and runs after the credential guard;
 * a route marked CheckInputAfterRouteGuards runs LateRequestInputGuard after its own guards instead.
 */
@Injectable()
export class RequestInputRules {
  /** Each route's input rules, read from its metadata once. */
  private readonly route = perRoute((controller, handler): RouteInput => {
    const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler.name) ?? {}) as Record<
      string,
      { data?: unknown }
    >;
    let takesBody = false;
    let query: RouteInput['query'] = [];
    for (const [key, arg] of Object.entries(args)) {
      const type = Number(key.split(':')[0]);
      if (type === (RouteParamtypes.BODY as number)) takesBody = true;
      if (type === (RouteParamtypes.QUERY as number) && query !== 'all')
        query = typeof arg.data === 'string' ? [...query, arg.data] : 'all';
    }
    const targets = [handler, controller];
    const operation = Reflect.getMetadata(API_OPERATION, handler) as { operationId?: unknown } | undefined;
    return {
      operationId: typeof operation?.operationId === 'string' ? operation.operationId : null,
      raw: this.reflector.getAllAndOverride<boolean | undefined>(RAW_INPUT, targets) ?? false,
      late: this.reflector.getAllAndOverride<boolean | undefined>(LATE_INPUT_CHECK, targets) ?? false,
      takesBody,
      query,
    };
  });

  /** The served document's query parameters, read the first time a request needs them (useDocument). */
  private declared: DeclaredQueries | null = null;
  private loadDeclared: (() => DeclaredQueries) | null = null;

  constructor(private readonly reflector: Reflector) {}

  /**
   * Holds every operation's query string to the parameters the served document declares for it (strict
   * parameters: checkDeclaredQuery). Without it (a bare test module) only the rules below apply.
   */
  useDocument(load: () => DeclaredQueries): void {
    this.loadDeclared = load;
    this.declared = null;
  }

  private declaredOf(operationId: string | null) {
    if (operationId === null || this.loadDeclared === null) return undefined;
    this.declared ??= this.loadDeclared();
    return this.declared.get(operationId);
  }

  isLate(context: ExecutionContext): boolean {
    return this.route(context).late;
  }

  check(context: ExecutionContext): void {
    const route = this.route(context);
    if (route.raw) return;
    const request = context.switchToHttp().getRequest<Request>();
    const body: unknown = request.body;
    if (route.takesBody) {
      // Every route that takes a body takes JSON (the OpenID Connect callback reads its own form: raw).
      if (carriesOtherThanJson(request)) throw unsupportedMediaType();
      if (suspectBodies.has(request)) {
        const refused = refusedText(body);
        if (refused) throw refused;
      }
    } else if (body !== null && typeof body === 'object') {
      const first = Object.keys(body)[0];
      if (first !== undefined) throw unexpectedBodyMember(first);
    }
    const mark = request.url.indexOf('?');
    if (mark < 0) return;
    const query = request.query as Record<string, unknown>;
    const declared = this.declaredOf(route.operationId);
    if (declared === undefined && route.query.length === 0) return;
    const names = route.query === 'all' || declared ? Object.keys(query) : route.query;
    const undecodable = undecodableQueryParameter(request.url.slice(mark + 1));
    if (undecodable !== undefined && (route.query === 'all' || declared || names.includes(undecodable)))
      throw RequestRefusal.field(undecodable, `${undecodable} is not valid percent-encoded UTF-8.`);
    if (declared) checkDeclaredQuery(declared, query, request.url.slice(mark + 1));
    const read: Record<string, unknown> = {};
    for (const name of names) {
      const value = query[name];
      if (Array.isArray(value)) throw repeatedParameter(name);
      if (value !== undefined) read[name] = value;
    }
    const refused = refusedText(read);
    if (refused) throw refused;
  }
}

/** Global (after the credential guard): every route but those that check after their own guards. */
@Injectable()
export class RequestInputGuard implements CanActivate {
  constructor(private readonly rules: RequestInputRules) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() === 'http' && !this.rules.isLate(context)) this.rules.check(context);
    return true;
  }
}

/** Last of a CheckInputAfterRouteGuards route's own guards. */
@Injectable()
export class LateRequestInputGuard implements CanActivate {
  constructor(private readonly rules: RequestInputRules) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() === 'http') this.rules.check(context);
    return true;
  }
}

import { RequestMethod, type INestApplicationContext } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import { adminRouteOf, type AdminRoute, ROUTE_ACCESS, RouteAccess } from '@app/access';

/** One route the application registers, read from its controllers' metadata (as the router does). */
export interface Route {
  method: string;
  /** `/api/RoleRegistry/:guid` */
  path: string;
  /** `PUT /api/RoleRegistry/:guid` */
  key: string;
  access: RouteAccess;
  /** The class of its `@Body()` parameter (a DTO; `Object` for any JSON), undefined when it takes no body. */
  body?: unknown;
  /** Its path parameters, in order. */
  params: string[];
  /** Its administrative write (@AdminAction), as the guard reads it; undefined when it is none. */
  admin?: AdminRoute;
}

/** Every route of every controller of the application. */
export function listRoutes(app: INestApplicationContext): Route[] {
  const modules = app.get(ModulesContainer);
  const scanner = new MetadataScanner();
  const reflector = app.get(Reflector);
  const routes: Route[] = [];
  for (const wrapper of [...modules.values()].flatMap((m) => [...m.controllers.values()])) {
    const instance = wrapper.instance as object | undefined;
    if (!instance || !wrapper.metatype) continue;
    const prefix = String(Reflect.getMetadata(PATH_METADATA, wrapper.metatype) ?? '');
    const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(proto)) {
      const handler = proto[name] as (...args: unknown[]) => unknown;
      // One path, or several for one handler (`@Get(['a', 'b'])`): each is a route.
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
      if (paths === undefined || method === undefined) continue;
      for (const path of Array.isArray(paths) ? paths : [paths]) {
        const full = `/${[prefix, path]
          .map((p) => p.replace(/^\/|\/$/g, ''))
          .filter(Boolean)
          .join('/')}`;
        const access = reflector.getAllAndOverride<RouteAccess | undefined>(ROUTE_ACCESS, [
          handler,
          wrapper.metatype,
        ]) ?? {
          kind: 'authenticated',
        };
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, wrapper.metatype, name) ?? {}) as Record<
          string,
          { index: number }
        >;
        const types = (Reflect.getMetadata('design:paramtypes', proto, name) ?? []) as unknown[];
        const bodyArg = Object.entries(args).find(
          ([key]) => Number(key.split(':')[0]) === (RouteParamtypes.BODY as number),
        )?.[1];
        const verb = RequestMethod[method];
        routes.push({
          method: verb,
          path: full,
          key: `${verb} ${full}`,
          access,
          body: bodyArg ? types[bodyArg.index] : undefined,
          params: [...full.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]),
          admin: adminRouteOf(handler),
        });
      }
    }
  }
  return routes;
}

/** Routes that change something (every method but GET, HEAD and OPTIONS). */
export function isWriteRoute(route: Route): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(route.method);
}

/** The administrative write routes (@AdminAction) by key (`POST /api/UserRegistry/:guid/Unlock`). */
export function adminRoutes(app: INestApplicationContext): Map<string, AdminRoute> {
  return new Map(listRoutes(app).flatMap((r) => (r.admin ? [[r.key, r.admin] as const] : [])));
}

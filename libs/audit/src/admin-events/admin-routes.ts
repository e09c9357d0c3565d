import { Injectable, RequestMethod } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { ADMIN_ACTION, type AdminActionMeta } from '@app/common';

/** An administrative write route: what it does, and the status it answers when it succeeds. */
export interface AdminRoute extends AdminActionMeta {
  action: string;
  successStatus: number;
}

/** The route Express matched (`req.route`), as `POST /api/UserRegistry/:guid/Unlock`. */
export function routeKeyOf(req: { method: string; route?: { path?: unknown } }): string | undefined {
  const path = req.route?.path;
  return typeof path === 'string' ? `${req.method} ${path}` : undefined;
}

function joinPath(prefix: string, path: string): string {
  return `/${[prefix, path]
    .map((p) => p.replace(/^\/|\/$/g, ''))
    .filter(Boolean)
    .join('/')}`;
}

/**
 * The routes marked @AdminAction, read once from the controllers' metadata (as the router reads it), by the
 * key Express gives the matched route: a refused write is known by its route even when the guard refused it
 * before any interceptor ran.
 */
@Injectable()
export class AdminRoutes {
  private table?: Map<string, AdminRoute>;

  constructor(private readonly discovery: DiscoveryService) {}

  of(req: { method: string; route?: { path?: unknown } }): AdminRoute | undefined {
    const key = routeKeyOf(req);
    return key === undefined ? undefined : (this.table ??= this.read()).get(key);
  }

  /** Every administrative write route, by key. */
  all(): ReadonlyMap<string, AdminRoute> {
    return (this.table ??= this.read());
  }

  private read(): Map<string, AdminRoute> {
    const table = new Map<string, AdminRoute>();
    const scanner = new MetadataScanner();
    for (const wrapper of this.discovery.getControllers()) {
      const instance = wrapper.instance as object | undefined;
      if (!instance || !wrapper.metatype) continue;
      const prefix = String(Reflect.getMetadata(PATH_METADATA, wrapper.metatype) ?? '');
      const proto = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of scanner.getAllMethodNames(proto)) {
        const handler = proto[name] as object;
        const meta = Reflect.getMetadata(ADMIN_ACTION, handler) as AdminActionMeta | undefined;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
        if (!meta || method === undefined || paths === undefined) continue;
        const verb = RequestMethod[method];
        const code = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
        for (const path of Array.isArray(paths) ? paths : [paths])
          table.set(`${verb} ${joinPath(prefix, path)}`, {
            ...meta,
            action: `${meta.targetType}.${meta.verb}`,
            successStatus: code ?? (verb === 'POST' ? 201 : 200),
          });
      }
    }
    return table;
  }
}

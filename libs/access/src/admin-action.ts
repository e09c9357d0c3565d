import { RequestMethod, SetMetadata } from '@nestjs/common';
import { HTTP_CODE_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import type { ClientContext } from '@app/http-edge';

export const ADMIN_ACTION = 'admin-action';

/** What an administrative write route does, for the administrators' audit trail (AdminEvent). */
export interface AdminActionMeta {
  /** The record the route writes, named as its resource: `UserRegistry`, `RoleRegistry`… */
  targetType: string;
  /** `Create`, `Update`, `Delete`, `Deactivate`, `Revoke`… */
  verb: string;
  /** The path parameter naming the target (default `guid`); null: none (a sub-record's creation). */
  targetParam?: string | null;
}

/** `<targetType>.<verb>`: the Action column. */
export function adminActionName(meta: AdminActionMeta): string {
  return `${meta.targetType}.${meta.verb}`;
}

/**
 * Marks an administrative write: an accepted one is recorded with its change (AdminEvents.applied, in the
 * change's transaction), a refused one (any 4xx but 401) with its outcome. Every write route carries it or is
 * on the declared list of non-administrative writes (test/security/admin-events.spec.ts).
 */
export const AdminAction = (targetType: string, verb: string, targetParam?: string | null) =>
  SetMetadata(ADMIN_ACTION, {
    targetType,
    verb,
    ...(targetParam !== undefined ? { targetParam } : {}),
  } satisfies AdminActionMeta);

/** An administrative write route as its AdminEvent rows name it: what it does, the status of its success. */
export interface AdminRoute extends AdminActionMeta {
  /** `<targetType>.<verb>` */
  action: string;
  successStatus: number;
}

/**
 * The administrative write `handler` is, from its @AdminAction and @HttpCode metadata (without @HttpCode,
 * Nest's documented default: 201 for POST, 200 for the rest); undefined when it is none.
 */
export function adminRouteOf(handler: object): AdminRoute | undefined {
  const meta = Reflect.getMetadata(ADMIN_ACTION, handler) as AdminActionMeta | undefined;
  if (!meta) return undefined;
  const code = Reflect.getMetadata(HTTP_CODE_METADATA, handler) as number | undefined;
  const post = Reflect.getMetadata(METHOD_METADATA, handler) === RequestMethod.POST;
  return { ...meta, action: adminActionName(meta), successStatus: code ?? (post ? 201 : 200) };
}

/**
 * What an administrative write's AdminEvent row takes of its request, as plain values: stamped by the global
 * guard on the Actor of an @AdminAction route, passed on by the controller with that Actor, read by AdminEvents.
 */
export interface AdminWriteContext {
  readonly route: AdminRoute;
  /** The target named by the route's path parameter; null when the route names none. */
  readonly targetGuid: string | null;
  readonly client: ClientContext;
  /** spec: API key record — the first eight characters of the presented key, for an API-key caller; else null. */
  readonly apiKeyIdentifier: string | null;
  /** Whether the write's row is written already (an applied change is never also counted as a refusal). */
  recorded: boolean;
}

import { SetMetadata } from '@nestjs/common';

export const ADMIN_ACTION = 'admin-action';

/** What an administrative write route does, for the administrators' audit trail (AdminEvent, issue 39). */
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

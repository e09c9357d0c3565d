import { inertText } from '@app/input-rules';

/** AdminEvent OutcomeId. */
export enum AdminEventOutcome {
  /** The change was written, in the same transaction as this row. */
  Applied = 1,
  /** The write was refused (403, 404, 409, 412, 400/422 validation): nothing was written. */
  Refused = 2,
}

/** The record an administrative write acted on, as it was at that moment. */
export interface AdminTarget {
  guid: string | null;
  /** Its display name. */
  name: string | null;
  /** Its tenant: what scopes the trail (a tenant administrator sees only their tenant's rows). */
  tenantId: number | null;
}

/** One changed field: old → new, or for a secret only that it changed. */
export type FieldChange = { field: string; old: unknown; new: unknown } | { field: string; changed: true };

export const ADMIN_EVENT_LIMITS = {
  userName: 256,
  name: 256,
  guid: 36,
  ip: 64,
  userAgent: 512,
  message: 512,
  /** Each old or new text value is cut to this (a rule's condition may be 64 KiB). */
  value: 256,
} as const;

/**
 * Columns never written to the trail as values: password and key hashes (and anything named like a password
 * or passcode) are recorded as "changed" only.
 */
const SECRET_FIELD = /hash|password|passcode|secret/i;
/** Flags that only say which form a password has are not secrets. */
const NOT_SECRET = new Set([
  'WirePasswordHash',
  'PasswordExpiryDate',
  'PasswordCreatedDate',
  'PasswordLocked',
  'PasswordLockedDate',
  'PasswordLockedUntil',
  'PasswordLockCount',
  'FailedPasswordCount',
]);

export function isSecretField(field: string): boolean {
  return SECRET_FIELD.test(field) && !NOT_SECRET.has(field);
}

/** Bookkeeping columns: the row itself says who and when, and the action says created or deleted. */
const STAMP_FIELDS = new Set([
  'Id',
  'Guid',
  'Version',
  'CreatedDate',
  'CreatedUser',
  'UpdatedDate',
  'UpdatedUser',
  'DeletedDate',
  'DeletedUser',
  'RevokedDate',
  'RevokedUser',
  'NormalizedName',
]);

function storable(value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return inertText(value, ADMIN_EVENT_LIMITS.value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  return inertText(JSON.stringify(value) ?? null, ADMIN_EVENT_LIMITS.value);
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return (a ?? null) === (b ?? null);
}

/** The change of a record of `tenantId` from `before` to `after` (either null: created, or gone). */
export function recordChange<E extends { Guid: string; Name: string }>(
  tenantId: number | null,
  before: E | null,
  after: E | null,
): { target: AdminTarget; changes: FieldChange[] } {
  const named = (before ?? after)!;
  return {
    target: { guid: named.Guid, name: named.Name, tenantId },
    changes: fieldChanges(before, after),
  };
}

/**
 * The fields that differ between `before` and `after` (null: the record did not exist, or no longer does), by
 * column name, bookkeeping columns left out, secrets only as "changed". Only the fields present in `after`
 * are compared, so a partial change can be given as `{ ...before, ...changes }` or as the changes alone.
 */
export function fieldChanges(
  before: Readonly<Record<string, unknown>> | null,
  after: Readonly<Record<string, unknown>> | null,
): FieldChange[] {
  if (!after) return [];
  const out: FieldChange[] = [];
  for (const [field, value] of Object.entries(after)) {
    if (STAMP_FIELDS.has(field) || typeof value === 'function') continue;
    const old = before ? before[field] : null;
    if (before ? same(old, value) : value === null || value === undefined) continue;
    if (isSecretField(field)) {
      if (value !== null && value !== undefined) out.push({ field, changed: true });
      continue;
    }
    out.push({ field, old: storable(old), new: storable(value) });
  }
  return out;
}

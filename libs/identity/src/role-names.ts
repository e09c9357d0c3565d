import type { FieldChange } from '@app/audit';

/**
 * A user's change of role as people read it in the administrators' trail: the roles' names
 * ("Role: Readers → Auditors"), never their ids ("RoleRegistryId: 1 → 2"). A role no longer found keeps its id.
 */
export async function withRoleNames(
  changes: FieldChange[],
  rolesByIds: (ids: number[]) => Promise<{ Id: number; Name: string }[]>,
): Promise<FieldChange[]> {
  const ids = changes.flatMap((c) => (c.field === 'RoleRegistryId' && 'old' in c ? [c.old, c.new] : []));
  const numbers = ids.filter((v): v is number => typeof v === 'number');
  if (!numbers.length) return changes;
  const names = new Map((await rolesByIds(numbers)).map((r) => [r.Id, r.Name]));
  const name = (id: unknown) => (typeof id === 'number' ? (names.get(id) ?? String(id)) : null);
  return changes.map((c) =>
    c.field === 'RoleRegistryId' && 'old' in c ? { field: 'Role', old: name(c.old), new: name(c.new) } : c,
  );
}

import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError, describeError } from '../../api/problem';
import type { Session } from '../../api/queries';
import formStyles from '../../components/forms.module.css';
import { allows, PERMISSION } from '../../components/permissions';
import { assignableRolesQuery, tenantsQuery, type RoleChoice, type User } from './queries';
import styles from './security.module.css';

/**
 * What a refused Security request means here: 403 is "not permitted" with the service's own reason (its
 * problem's detail: "…holds Invoke, which you do not hold"), the rest as everywhere.
 */
export function securityError(error: unknown): string {
  if (error instanceof ApiError && error.status === 403)
    return `Not permitted: ${error.problem?.detail ?? 'your account may not do this.'} Ask an administrator if you need it.`;
  return describeError(error);
}

/** Whether a list was refused as not permitted (the page then offers nothing to create either). */
export const refused = (error: unknown) => error instanceof ApiError && error.status === 403;

/** A labelled checkbox with an optional hint. */
export function Check({
  id,
  label,
  checked,
  onChange,
  hint,
}: {
  id: string;
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: string;
}) {
  return (
    <div className={styles.check}>
      <input
        id={id}
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={hint ? `${id}-hint` : undefined}
      />
      <div>
        <label htmlFor={id}>{label}</label>
        {hint && (
          <p id={`${id}-hint`} className={formStyles.hint}>
            {hint}
          </p>
        )}
      </div>
    </div>
  );
}

export function UserState({ user }: { user: User }) {
  return (
    <>
      <span className={`${styles.badge} ${user.active ? styles.ok : styles.off}`}>
        {user.active ? 'Active' : 'Inactive'}
      </span>
      {user.passwordLocked && <span className={`${styles.badge} ${styles.bad}`}>Password locked</span>}
      {user.wirePasswordHash && <span className={`${styles.badge} ${styles.off}`}>WirePasswordHash</span>}
    </>
  );
}

/**
 * Roles and tenants by name for the user pages: the roles a user administrator may give (GET
 * /api/UserRegistry/AssignableRoles, which needs no right over roles) carry their names and their tenants';
 * the tenant list fills in the rest when the caller may read it. An identifier is shown only for what
 * neither names (a tenant without roles, for a landlord without Read Write Tenant).
 */
export function useNames(session: Session) {
  const choices = useQuery({
    ...assignableRolesQuery,
    enabled: allows(session, { permission: PERMISSION.ReadWriteSecurityUser }),
  });
  const tenants = useQuery({
    ...tenantsQuery,
    enabled: allows(session, { permission: PERMISSION.ReadWriteTenant, landlord: true }),
  });
  const roleName = (guid: string) => choices.data?.find((r) => r.guid === guid)?.name ?? guid;
  const tenantName = (guid: string) =>
    (guid === session.tenantGuid ? session.tenantName : null) ??
    tenants.data?.find((t) => t.guid === guid)?.name ??
    choices.data?.find((r) => r.tenantGuid === guid)?.tenantName ??
    guid;
  // Whether the roles the caller may give are known (or will never be): what a page may offer waits for them.
  const settled = choices.data !== undefined || choices.isError || !choices.isEnabled;
  return { choices: choices.data, roleName, tenantName, settled };
}

/**
 * The role of a user, chosen by name from the roles the caller may give (with the tenant's name when they
 * span tenants, as the landlord's do). The service checks the choice either way.
 */
export function RoleSelect({
  id,
  choices,
  value,
  onChange,
}: {
  id: string;
  choices: RoleChoice[] | undefined;
  value: string;
  onChange: (guid: string) => void;
}) {
  const tenants = new Set(choices?.map((r) => r.tenantGuid));
  return (
    <div className={formStyles.field}>
      <label htmlFor={id} className={formStyles.label}>
        Role
      </label>
      <select id={id} className={styles.select} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{choices ? 'Choose a role…' : 'Loading the roles…'}</option>
        {choices?.map((r) => (
          <option key={r.guid} value={r.guid}>
            {r.name}
            {tenants.size > 1 ? ` (${r.tenantName})` : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

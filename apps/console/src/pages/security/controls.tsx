import type { ReactNode } from 'react';
import formStyles from '../../components/forms.module.css';
import type { Role, Tenant } from './queries';
import styles from './security.module.css';

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

/** The tenant of a record, by name when the tenant list can be read. */
export function tenantName(
  tenants: Tenant[] | undefined,
  guid: string,
  own: { guid: string; name: string | null },
) {
  if (guid === own.guid && own.name) return own.name;
  return tenants?.find((t) => t.guid === guid)?.name ?? guid;
}

/**
 * The role of a user: a list to choose from when the caller may read roles (Read Write Security Role),
 * else the role's identifier typed in (the service checks it either way).
 */
export function RoleChoice({
  id,
  roles,
  tenants,
  own,
  value,
  onChange,
}: {
  id: string;
  roles: Role[] | undefined;
  tenants: Tenant[] | undefined;
  own: { guid: string; name: string | null };
  value: string;
  onChange: (guid: string) => void;
}) {
  if (!roles)
    return (
      <div className={formStyles.field}>
        <label htmlFor={id} className={formStyles.label}>
          Role identifier
        </label>
        <input
          id={id}
          className={formStyles.input}
          value={value}
          onChange={(e) => onChange(e.target.value.trim())}
          aria-describedby={`${id}-hint`}
        />
        <p id={`${id}-hint`} className={formStyles.hint}>
          Your account may not list roles; type the role&apos;s identifier (a GUID).
        </p>
      </div>
    );
  return (
    <div className={formStyles.field}>
      <label htmlFor={id} className={formStyles.label}>
        Role
      </label>
      <select id={id} className={styles.select} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Choose a role…</option>
        {roles.map((r) => (
          <option key={r.guid} value={r.guid}>
            {r.name} ({tenantName(tenants, r.tenantGuid, own)})
          </option>
        ))}
      </select>
    </div>
  );
}

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useOutletContext } from 'react-router';
import { api, done, ifMatch, unwrap, type Schemas } from '../../api/client';
import type { Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { KeyedTable, type KeyedColumn } from '../../components/KeyedTable';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { usePageTitle } from '../../components/page-title';
import { allows, holdsEvery, PERMISSION } from '../../components/permissions';
import { refused, securityError, useNames } from './controls';
import { HistoryLink } from './HistoryLink';
import { permissionsQuery, rolesQuery, tenantsQuery, type Role } from './queries';
import styles from './security.module.css';
import { Loading } from '../../components/Loading';

type PermissionCode = Schemas['CreateRoleDto']['permissions'][number];

/** Security → Roles: the roles of the tenant (the landlord sees every tenant's) and their permissions. */
export function RolesPage() {
  const session = useOutletContext<Session>();
  usePageTitle('Roles');
  const roles = useQuery(rolesQuery);
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Role | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Role | null>(null);
  const [message, setMessage] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const mayManage =
    allows(session, { permission: PERMISSION.ReadWriteSecurityRole }) && !refused(roles.error);
  // A banner belongs to the action that raised it: starting another one clears it.
  const start = (next: Role | 'new') => {
    setMessage(null);
    setEditing(next);
  };

  const remove = useMutation({
    mutationFn: (role: Role) =>
      done(api.DELETE('/api/RoleRegistry/{guid}', { params: { path: { guid: role.guid } } })),
    onSuccess: (_r, role) => {
      setDeleting(null);
      setMessage({ tone: 'success', text: `The role ${role.name} is deleted.` });
      void queryClient.invalidateQueries({ queryKey: rolesQuery.queryKey });
    },
    onError: (err) => {
      setDeleting(null);
      setMessage({ tone: 'error', text: securityError(err) });
    },
  });

  return (
    <>
      <h1>Roles</h1>
      <p className={styles.lead}>A user has one role; a role grants permissions within its tenant.</p>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      {mayManage && editing === null && (
        <p>
          <button type="button" className={formStyles.primary} onClick={() => start('new')}>
            New role
          </button>
        </p>
      )}
      {editing !== null && (
        <RoleForm
          key={editing === 'new' ? 'new' : editing.guid}
          role={editing === 'new' ? null : editing}
          session={session}
          onDone={(text) => {
            setEditing(null);
            if (text) setMessage({ tone: 'success', text });
          }}
        />
      )}
      {roles.isError && <Alert tone="error">{securityError(roles.error)}</Alert>}
      {roles.isPending && <Loading what="roles" />}
      {roles.data && (
        <RolesTable
          roles={roles.data}
          session={session}
          onEdit={start}
          onDelete={(role) => {
            setMessage(null);
            setDeleting(role);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this role?"
        confirm="Delete role"
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>The role {deleting?.name} is deleted. No user holds it.</p>
      </ConfirmDialog>
    </>
  );
}

function RolesTable({
  roles,
  session,
  onEdit,
  onDelete,
}: {
  roles: Role[];
  session: Session;
  onEdit: (role: Role) => void;
  onDelete: (role: Role) => void;
}) {
  const { tenantName } = useNames(session);
  // On a phone: Name and Users; the tenant, permissions and actions in each row's details.
  const columns: KeyedColumn<Role>[] = [
    { id: 'name', label: 'Name', keyColumn: true, cell: (r) => r.name },
    { id: 'tenant', label: 'Tenant', cell: (r) => tenantName(r.tenantGuid) },
    {
      id: 'permissions',
      label: 'Permissions',
      cell: (r) => (r.permissionNames.length ? r.permissionNames.join(', ') : '—'),
    },
    { id: 'users', label: 'Users', keyColumn: true, cell: (r) => r.users },
    {
      id: 'actions',
      label: 'Actions',
      hiddenLabel: true,
      cell: (r) => <RoleActions role={r} session={session} onEdit={onEdit} onDelete={onDelete} />,
    },
  ];
  return (
    <section className={styles.card} aria-labelledby="roles-title">
      <h2 id="roles-title">
        {roles.length} {roles.length === 1 ? 'role' : 'roles'}
      </h2>
      <div className={styles.tableBox}>
        <KeyedTable
          className={styles.table}
          rows={roles}
          columns={columns}
          rowKey={(r) => r.guid}
          rowName={(r) => `the role ${r.name}`}
          rowData={(r) => ({ 'data-role-guid': r.guid })}
        />
      </div>
    </section>
  );
}

/**
 * Edit and Delete only where the service accepts them: a role holding a permission the caller lacks cannot be
 * changed by them (403), and one that users still hold cannot be deleted (409).
 */
function RoleActions({
  role: r,
  session,
  onEdit,
  onDelete,
}: {
  role: Role;
  session: Session;
  onEdit: (role: Role) => void;
  onDelete: (role: Role) => void;
}) {
  const mayChange = holdsEvery(session, r.permissions);
  return (
    <div className={styles.cellActions}>
      <HistoryLink session={session} guid={r.guid} label={`History of the role ${r.name}`} />
      {mayChange && (
        <button
          type="button"
          className={formStyles.secondary}
          onClick={() => onEdit(r)}
          aria-label={`Edit the role ${r.name}`}
        >
          Edit
        </button>
      )}
      {mayChange && r.users === 0 && (
        <button
          type="button"
          className={`${formStyles.secondary} ${styles.danger}`}
          onClick={() => onDelete(r)}
          aria-label={`Delete the role ${r.name}`}
        >
          Delete
        </button>
      )}
    </div>
  );
}

/** Creates or saves the role with the form's values; says what happened (or the service's reason). */
function useSaveRole(
  role: Role | null,
  session: Session,
  form: { name: string; chosen: Set<number>; tenantGuid: string },
  onDone: (text?: string) => void,
  setError: (text: string) => void,
) {
  const queryClient = useQueryClient();
  const { name, chosen, tenantGuid } = form;
  return useMutation({
    mutationFn: async () => {
      const list = [...chosen].sort((a, b) => a - b) as PermissionCode[];
      if (role)
        await unwrap(
          api.PUT('/api/RoleRegistry/{guid}', {
            params: { path: { guid: role.guid }, header: ifMatch(role) },
            body: { name: name.trim(), permissions: list },
          }),
        );
      else
        await unwrap(
          api.POST('/api/RoleRegistry', {
            body: { name: name.trim(), permissions: list, ...(session.landlord ? { tenantGuid } : {}) },
          }),
        );
    },
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: rolesQuery.queryKey });
      onDone(role ? `The role ${name.trim()} is saved.` : `The role ${name.trim()} is created.`);
    },
    onError: (err) => setError(securityError(err)),
  });
}

function RoleForm({
  role,
  session,
  onDone,
}: {
  role: Role | null;
  session: Session;
  onDone: (text?: string) => void;
}) {
  const [name, setName] = useState(role?.name ?? '');
  const [chosen, setChosen] = useState<Set<number>>(new Set(role?.permissions ?? []));
  const [tenantGuid, setTenantGuid] = useState(session.tenantGuid);
  const [error, setError] = useState<string | null>(null);
  const roleTenant = role?.tenantGuid ?? tenantGuid;
  const save = useSaveRole(role, session, { name, chosen, tenantGuid }, onDone, setError);

  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!name.trim()) return setError('Enter the role name.');
    save.mutate();
  }

  function toggle(id: number, on: boolean) {
    const next = new Set(chosen);
    if (on) next.add(id);
    else next.delete(id);
    setChosen(next);
  }

  return (
    <section className={styles.card} aria-labelledby="role-form-title">
      <h2 id="role-form-title">{role ? `Edit the role ${role.name}` : 'New role'}</h2>
      <form onSubmit={submit} noValidate aria-busy={save.isPending}>
        {error && <Alert tone="error">{error}</Alert>}
        <Field id="role-name" label="Name" value={name} onChange={setName} autoComplete="off" />
        {!role && session.landlord && (
          <TenantChoice
            session={session}
            value={tenantGuid}
            onChange={(guid) => {
              setTenantGuid(guid);
              if (guid !== session.tenantGuid) toggle(PERMISSION.ReadWriteTenant, false);
            }}
          />
        )}
        <PermissionChoice
          chosen={chosen}
          onToggle={toggle}
          offered={(id) => offeredPermission(session, roleTenant, id)}
        />
        <div className={formStyles.actions}>
          <button type="button" className={formStyles.secondary} onClick={() => onDone()}>
            Cancel
          </button>
          <button type="submit" className={formStyles.primary} disabled={save.isPending}>
            {role ? 'Save role' : 'Create role'}
          </button>
        </div>
      </form>
    </section>
  );
}

/** The landlord chooses the new role's tenant (by name, when it may read the tenants). */
function TenantChoice({
  session,
  value,
  onChange,
}: {
  session: Session;
  value: string;
  onChange: (guid: string) => void;
}) {
  const tenants = useQuery({
    ...tenantsQuery,
    enabled: allows(session, { permission: PERMISSION.ReadWriteTenant, landlord: true }),
  }).data;
  if (!tenants) return null;
  return (
    <div className={formStyles.field}>
      <label htmlFor="role-tenant" className={formStyles.label}>
        Tenant
      </label>
      <select
        id="role-tenant"
        className={styles.select}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      >
        {tenants.map((t) => (
          <option key={t.guid} value={t.guid}>
            {t.name}
            {t.landlord ? ' (landlord)' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * Whether the service would accept giving a role of `tenant` this permission from this caller: one they hold
 * themselves; Read Write Tenant only on a landlord role, the only place it grants anything (the tenants'
 * pages are the landlord's).
 */
function offeredPermission(session: Session, tenant: string, id: number): boolean {
  if (!session.permissions.includes(id)) return false;
  return id !== PERMISSION.ReadWriteTenant || (session.landlord && tenant === session.tenantGuid);
}

/** The permissions this caller may give the role, as checkboxes. */
function PermissionChoice({
  chosen,
  onToggle,
  offered,
}: {
  chosen: Set<number>;
  onToggle: (id: number, on: boolean) => void;
  offered: (id: number) => boolean;
}) {
  // What the service would accept, plus what the role already holds (so it can be taken away).
  const permissions = useQuery(permissionsQuery).data?.filter((p) => offered(p.id) || chosen.has(p.id));
  return (
    <fieldset className={styles.fieldset}>
      <legend>Permissions</legend>
      <div className={styles.permissions}>
        {permissions?.map((p) => (
          <div key={p.id} className={styles.check}>
            <input
              id={`permission-${p.id}`}
              type="checkbox"
              checked={chosen.has(p.id)}
              onChange={(e) => onToggle(p.id, e.target.checked)}
            />
            <label htmlFor={`permission-${p.id}`}>{p.name}</label>
          </div>
        ))}
      </div>
    </fieldset>
  );
}

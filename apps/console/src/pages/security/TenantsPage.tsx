import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useOutletContext } from 'react-router';
import { api, done, ifMatch, unwrap } from '../../api/client';
import type { Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import { KeyedTable, type KeyedColumn } from '../../components/KeyedTable';
import formStyles from '../../components/forms.module.css';
import { usePageTitle } from '../../components/page-title';
import { allows, PERMISSION } from '../../components/permissions';
import { formatDateTime } from '../../components/time';
import { refused, securityError } from './controls';
import { tenantsQuery, type Tenant } from './queries';
import styles from './security.module.css';
import { Loading } from '../../components/Loading';
import hidden from '../../components/visually-hidden.module.css';

type Notice = { tone: 'success' | 'error'; text: string };

/** Create, rename and delete, each refreshing the list and saying what happened. */
function useTenantChanges(onNotice: (n: Notice) => void) {
  const queryClient = useQueryClient();
  const refresh = () => void queryClient.invalidateQueries({ queryKey: tenantsQuery.queryKey });
  const failed = (err: unknown) => onNotice({ tone: 'error', text: securityError(err) });
  const succeeded = (text: string) => {
    onNotice({ tone: 'success', text });
    refresh();
  };
  const create = useMutation({
    mutationFn: (name: string) => unwrap(api.POST('/api/TenantRegistry', { body: { name } })),
    onSuccess: (_r, name) => succeeded(`The tenant ${name} is created.`),
    onError: failed,
  });
  const rename = useMutation({
    mutationFn: (r: { tenant: Tenant; name: string }) =>
      unwrap(
        api.PUT('/api/TenantRegistry/{guid}', {
          params: { path: { guid: r.tenant.guid }, header: ifMatch(r.tenant) },
          body: { name: r.name },
        }),
      ),
    onSuccess: (_r, r) => succeeded(`The tenant is now called ${r.name}.`),
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: (tenant: Tenant) =>
      done(api.DELETE('/api/TenantRegistry/{guid}', { params: { path: { guid: tenant.guid } } })),
    onSuccess: (_r, tenant) => succeeded(`The tenant ${tenant.name} is deleted.`),
    onError: failed,
  });
  return { create, rename, remove };
}

/** Security → Tenants (landlord only, Read Write Tenant): list, create, rename, delete. */
export function TenantsPage() {
  const session = useOutletContext<Session>();
  usePageTitle('Tenants');
  const tenants = useQuery(tenantsQuery);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [deleting, setDeleting] = useState<Tenant | null>(null);
  const changes = useTenantChanges(setNotice);
  const mayManage =
    allows(session, { permission: PERMISSION.ReadWriteTenant, landlord: true }) && !refused(tenants.error);
  return (
    <>
      <h1>Tenants</h1>
      <p className={styles.lead}>
        Each tenant has its own users and roles. The landlord tenant runs the service.
      </p>
      {notice && <Alert tone={notice.tone}>{notice.text}</Alert>}
      {tenants.isError && <Alert tone="error">{securityError(tenants.error)}</Alert>}
      {tenants.isPending && <Loading what="tenants" />}
      {tenants.data && (
        <section className={styles.card} aria-labelledby="tenants-title">
          <h2 id="tenants-title">
            {tenants.data.length} {tenants.data.length === 1 ? 'tenant' : 'tenants'}
          </h2>
          <TenantsTable
            tenants={tenants.data}
            onRename={(tenant, name) => changes.rename.mutate({ tenant, name })}
            onDelete={setDeleting}
          />
        </section>
      )}
      {mayManage && (
        <NewTenant
          busy={changes.create.isPending}
          onCreate={(name, created) => changes.create.mutate(name, { onSuccess: created })}
          onNotice={setNotice}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this tenant?"
        confirm="Delete tenant"
        busy={changes.remove.isPending}
        onConfirm={() => deleting && changes.remove.mutate(deleting, { onSettled: () => setDeleting(null) })}
        onCancel={() => setDeleting(null)}
      >
        <p>
          The tenant {deleting?.name} is deleted: its users can no longer sign in, and their API keys stop
          working.
        </p>
      </ConfirmDialog>
    </>
  );
}

/**
 * Each tenant: its name (or the rename field), when it was created, Rename and Delete (never the landlord).
 * On a phone the name shows, the rest in each row's details.
 */
function TenantsTable({
  tenants,
  onRename,
  onDelete,
}: {
  tenants: Tenant[];
  onRename: (tenant: Tenant, name: string) => void;
  onDelete: (tenant: Tenant) => void;
}) {
  const [renaming, setRenaming] = useState<{ guid: string; name: string } | null>(null);
  const columns: KeyedColumn<Tenant>[] = [
    {
      id: 'name',
      label: 'Name',
      keyColumn: true,
      cell: (t) =>
        renaming?.guid === t.guid ? (
          <RenameForm
            tenant={t}
            name={renaming.name}
            onChange={(name) => setRenaming({ guid: t.guid, name })}
            onSave={(name) => {
              if (name.trim()) onRename(t, name.trim());
              setRenaming(null);
            }}
            onCancel={() => setRenaming(null)}
          />
        ) : (
          <>
            {t.name}
            {t.landlord && <span className={`${styles.badge} ${styles.ok} ${styles.after}`}>landlord</span>}
          </>
        ),
    },
    {
      id: 'created',
      label: 'Created',
      cell: (t) => `${formatDateTime(Date.parse(t.createdDate))} by ${t.createdUser}`,
    },
    {
      id: 'actions',
      label: 'Actions',
      hiddenLabel: true,
      cell: (t) => (
        <div className={styles.cellActions}>
          <button
            type="button"
            className={formStyles.secondary}
            onClick={() => setRenaming({ guid: t.guid, name: t.name })}
            aria-label={`Rename the tenant ${t.name}`}
          >
            Rename
          </button>
          {!t.landlord && (
            <button
              type="button"
              className={`${formStyles.secondary} ${styles.danger}`}
              onClick={() => onDelete(t)}
              aria-label={`Delete the tenant ${t.name}`}
            >
              Delete
            </button>
          )}
        </div>
      ),
    },
  ];
  return (
    <div className={styles.tableBox}>
      <KeyedTable
        className={styles.table}
        rows={tenants}
        columns={columns}
        rowKey={(t) => t.guid}
        rowName={(t) => `the tenant ${t.name}`}
        rowData={(t) => ({ 'data-tenant-guid': t.guid })}
      />
    </div>
  );
}

function RenameForm({
  tenant,
  name,
  onChange,
  onSave,
  onCancel,
}: {
  tenant: Tenant;
  name: string;
  onChange: (name: string) => void;
  onSave: (name: string) => void;
  onCancel: () => void;
}) {
  return (
    <form
      className={styles.row}
      onSubmit={(e) => {
        e.preventDefault();
        onSave(name);
      }}
    >
      <label htmlFor="rename-tenant" className={hidden.visuallyHidden}>
        New name of {tenant.name}
      </label>
      <input
        id="rename-tenant"
        className={formStyles.input}
        value={name}
        onChange={(e) => onChange(e.target.value)}
        autoFocus
      />
      <button type="submit" className={formStyles.primary}>
        Save
      </button>
      <button type="button" className={formStyles.secondary} onClick={onCancel}>
        Cancel
      </button>
    </form>
  );
}

function NewTenant({
  busy,
  onCreate,
  onNotice,
}: {
  busy: boolean;
  onCreate: (name: string, created: () => void) => void;
  onNotice: (n: Notice) => void;
}) {
  const [name, setName] = useState('');
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) return onNotice({ tone: 'error', text: 'Enter the tenant name.' });
    onCreate(name.trim(), () => setName(''));
  }
  return (
    <section className={styles.card} aria-labelledby="new-tenant-title">
      <h2 id="new-tenant-title">New tenant</h2>
      <form onSubmit={submit} noValidate aria-busy={busy}>
        <Field id="tenant-name" label="Name" value={name} onChange={setName} autoComplete="off" />
        <div className={formStyles.actions}>
          <button type="submit" className={formStyles.primary} disabled={busy}>
            Create tenant
          </button>
        </div>
      </form>
    </section>
  );
}

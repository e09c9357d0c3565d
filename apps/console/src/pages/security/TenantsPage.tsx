import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, done, ifMatch, unwrap } from '../../api/client';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { usePageTitle } from '../../components/page-title';
import { formatDateTime } from '../../components/time';
import { tenantsQuery, type Tenant } from './queries';
import styles from './security.module.css';
import { securityError } from './UsersPage';

/** Security → Tenants (landlord only, Read Write Tenant): list, create, rename, delete. */
export function TenantsPage() {
  usePageTitle('Tenants');
  const tenants = useQuery(tenantsQuery);
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<{ tenant: Tenant; name: string } | null>(null);
  const [deleting, setDeleting] = useState<Tenant | null>(null);
  const [message, setMessage] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const refresh = () => void queryClient.invalidateQueries({ queryKey: tenantsQuery.queryKey });
  const failed = (err: unknown) => setMessage({ tone: 'error', text: securityError(err) });

  const create = useMutation({
    mutationFn: (tenantName: string) =>
      unwrap(api.POST('/api/TenantRegistry', { body: { name: tenantName } })),
    onSuccess: (_r, tenantName) => {
      setName('');
      setMessage({ tone: 'success', text: `The tenant ${tenantName} is created.` });
      refresh();
    },
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
    onSuccess: (_r, r) => {
      setRenaming(null);
      setMessage({ tone: 'success', text: `The tenant is now called ${r.name}.` });
      refresh();
    },
    onError: failed,
  });
  const remove = useMutation({
    mutationFn: (tenant: Tenant) =>
      done(api.DELETE('/api/TenantRegistry/{guid}', { params: { path: { guid: tenant.guid } } })),
    onSuccess: (_r, tenant) => {
      setDeleting(null);
      setMessage({ tone: 'success', text: `The tenant ${tenant.name} is deleted.` });
      refresh();
    },
    onError: (err) => {
      setDeleting(null);
      failed(err);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setMessage(null);
    if (!name.trim()) return setMessage({ tone: 'error', text: 'Enter the tenant name.' });
    create.mutate(name.trim());
  }

  return (
    <>
      <h1>Tenants</h1>
      <p className={styles.lead}>
        Each tenant has its own users and roles. The landlord tenant runs the service.
      </p>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      {tenants.isError && <Alert tone="error">{securityError(tenants.error)}</Alert>}
      {tenants.isPending && <p role="status">Loading tenants…</p>}
      {tenants.data && (
        <section className={styles.card} aria-labelledby="tenants-title">
          <h2 id="tenants-title">
            {tenants.data.length} {tenants.data.length === 1 ? 'tenant' : 'tenants'}
          </h2>
          <table className={styles.table}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className={styles.visuallyHidden}>Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tenants.data.map((t) => (
                <tr key={t.guid}>
                  <td>
                    {renaming?.tenant.guid === t.guid ? (
                      <form
                        className={styles.row}
                        onSubmit={(e) => {
                          e.preventDefault();
                          if (renaming.name.trim()) rename.mutate({ tenant: t, name: renaming.name.trim() });
                        }}
                      >
                        <label htmlFor="rename-tenant" className={styles.visuallyHidden}>
                          New name of {t.name}
                        </label>
                        <input
                          id="rename-tenant"
                          className={formStyles.input}
                          value={renaming.name}
                          onChange={(e) => setRenaming({ tenant: t, name: e.target.value })}
                          autoFocus
                        />
                        <button type="submit" className={formStyles.primary}>
                          Save
                        </button>
                        <button
                          type="button"
                          className={formStyles.secondary}
                          onClick={() => setRenaming(null)}
                        >
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <>
                        {t.name}
                        {t.landlord && (
                          <span className={`${styles.badge} ${styles.ok} ${styles.after}`}>landlord</span>
                        )}
                      </>
                    )}
                  </td>
                  <td>
                    {formatDateTime(Date.parse(t.createdDate))} by {t.createdUser}
                  </td>
                  <td>
                    <div className={styles.cellActions}>
                      <button
                        type="button"
                        className={formStyles.secondary}
                        onClick={() => setRenaming({ tenant: t, name: t.name })}
                        aria-label={`Rename the tenant ${t.name}`}
                      >
                        Rename
                      </button>
                      {!t.landlord && (
                        <button
                          type="button"
                          className={`${formStyles.secondary} ${styles.danger}`}
                          onClick={() => setDeleting(t)}
                          aria-label={`Delete the tenant ${t.name}`}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <section className={styles.card} aria-labelledby="new-tenant-title">
        <h2 id="new-tenant-title">New tenant</h2>
        <form onSubmit={submit} noValidate aria-busy={create.isPending}>
          <Field id="tenant-name" label="Name" value={name} onChange={setName} autoComplete="off" />
          <div className={formStyles.actions}>
            <button type="submit" className={formStyles.primary} disabled={create.isPending}>
              Create tenant
            </button>
          </div>
        </form>
      </section>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this tenant?"
        confirm="Delete tenant"
        busy={remove.isPending}
        onConfirm={() => deleting && remove.mutate(deleting)}
        onCancel={() => setDeleting(null)}
      >
        <p>The tenant {deleting?.name} is deleted. The service refuses while it still has users or roles.</p>
      </ConfirmDialog>
    </>
  );
}

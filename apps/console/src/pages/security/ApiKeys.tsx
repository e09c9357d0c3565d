import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, done, unwrap } from '../../api/client';
import type { Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { formatDateTime } from '../../components/time';
import { apiKeysQuery, type ApiKey, type CreatedApiKey, type User } from './queries';
import styles from './security.module.css';
import { securityError } from './UsersPage';

/**
 * A user's API keys (spec: API keys; Administration, Security, Users, a user, Generate API Key): the list
 * (identifier, name, description, created), Generate API Key (Name required, Description optional) whose
 * raw key is shown once, and revoke. Keys are made only for users of the signed-in user's own tenant, as
 * the service rules, so Generate is offered only there.
 */
export function ApiKeys({ user, session }: { user: User; session: Session }) {
  const keys = useQuery(apiKeysQuery(user.guid));
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const keyField = useRef<HTMLInputElement>(null);
  const ownTenant = user.tenantGuid === session.tenantGuid;

  const generate = useMutation({
    mutationFn: async () =>
      (
        await unwrap(
          api.POST('/api/UserRegistryApiKey', {
            body: { userRegistryGuid: user.guid, name: name.trim(), description: description.trim() || null },
          }),
        )
      ).data,
    onSuccess: (key) => {
      setCreated(key);
      setCopied(false);
      setName('');
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: apiKeysQuery(user.guid).queryKey });
    },
    onError: (err) => setError(securityError(err)),
  });

  const revoke = useMutation({
    mutationFn: async (key: ApiKey) =>
      done(api.DELETE('/api/UserRegistryApiKey/{guid}', { params: { path: { guid: key.guid } } })),
    onSuccess: (_r, key) => {
      setRevoking(null);
      setRevoked(`The key ${key.displayIdentifier}… (${key.name}) is revoked.`);
      void queryClient.invalidateQueries({ queryKey: apiKeysQuery(user.guid).queryKey });
    },
    onError: (err) => {
      setRevoking(null);
      setError(securityError(err));
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    setRevoked(null);
    if (!name.trim()) return setError('Enter a name for the key.');
    generate.mutate();
  }

  async function copy() {
    if (!created) return;
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      // No clipboard (a plain-HTTP host): the key is selected for Ctrl+C instead.
      keyField.current?.select();
    }
  }

  const active = keys.data?.filter((k) => !k.revokedDate) ?? [];
  return (
    <section className={styles.card} aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className={styles.muted}>
        For integrations (for example POST /api/Invoke/…): sent in the x-api-key header. Not affected by
        logout, password changes or Revoke Sessions; revoke a key here.
      </p>
      {error && <Alert tone="error">{error}</Alert>}
      {revoked && <Alert tone="success">{revoked}</Alert>}
      {created && (
        <div className={styles.card} aria-labelledby="new-key-title" role="region">
          <h3 id="new-key-title">The new key “{created.name}”</h3>
          <Alert tone="warning">
            Copy the key now and store it safely. It will not be shown again: the service keeps only its hash.
          </Alert>
          <div className={styles.key}>
            <label htmlFor="new-api-key" className={styles.visuallyHidden}>
              The new API key
            </label>
            <input
              id="new-api-key"
              ref={keyField}
              readOnly
              value={created.key}
              onFocus={(e) => e.target.select()}
            />
            <button type="button" className={formStyles.secondary} onClick={() => void copy()}>
              {copied ? 'Copied' : 'Copy'}
            </button>
          </div>
          <div className={formStyles.actions}>
            <button type="button" className={formStyles.primary} onClick={() => setCreated(null)}>
              I have stored it
            </button>
          </div>
        </div>
      )}
      {keys.isError && <Alert tone="error">{securityError(keys.error)}</Alert>}
      {keys.data && active.length === 0 && <p>This user has no API key.</p>}
      {active.length > 0 && (
        <table className={styles.table} aria-labelledby="keys-title">
          <thead>
            <tr>
              <th scope="col">Identifier</th>
              <th scope="col">Name</th>
              <th scope="col">Description</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span className={styles.visuallyHidden}>Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {active.map((k) => (
              <tr key={k.guid} data-key-guid={k.guid}>
                <td className={styles.mono}>{k.displayIdentifier}…</td>
                <td>{k.name}</td>
                <td>{k.description ?? '—'}</td>
                <td>
                  {formatDateTime(Date.parse(k.createdDate))} by {k.createdUser}
                </td>
                <td>
                  <button
                    type="button"
                    className={`${formStyles.secondary} ${styles.danger}`}
                    onClick={() => setRevoking(k)}
                    aria-label={`Revoke the key ${k.name}`}
                  >
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {ownTenant ? (
        <form onSubmit={submit} noValidate aria-labelledby="generate-title" aria-busy={generate.isPending}>
          <h3 id="generate-title">Generate API Key</h3>
          <div className={styles.columns}>
            <Field id="key-name" label="Name" value={name} onChange={setName} autoComplete="off" required />
            <Field
              id="key-description"
              label="Description (optional)"
              value={description}
              onChange={setDescription}
              autoComplete="off"
            />
          </div>
          <div className={formStyles.actions}>
            <button type="submit" className={formStyles.primary} disabled={generate.isPending}>
              Save
            </button>
          </div>
        </form>
      ) : (
        <p className={styles.muted}>API keys can be generated only for users of your own tenant.</p>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this API key?"
        confirm="Revoke key"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Integrations using the key {revoking?.displayIdentifier}… ({revoking?.name}) are refused from now
          on, on every node within a minute at the latest.
        </p>
      </ConfirmDialog>
    </section>
  );
}

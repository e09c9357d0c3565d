import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { api, done, unwrap } from '../../api/client';
import type { Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { HistoryLink } from './HistoryLink';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import { KeyedTable, type KeyedColumn } from '../../components/KeyedTable';
import formStyles from '../../components/forms.module.css';
import { formatDateTime } from '../../components/time';
import { securityError } from './controls';
import { apiKeysQuery, type ApiKey, type CreatedApiKey, type User } from './queries';
import styles from './security.module.css';
import hidden from '../../components/visually-hidden.module.css';

type Notice = { tone: 'success' | 'error'; text: string };

/**
 * A user's API keys (spec: API keys; Administration, Security, Users, a user, Generate API Key): the list
 * (identifier, name, description, created), Generate API Key (Name required, Description optional) whose raw
 * key is shown once, and revoke. Shown only for users of the signed-in user's own tenant, as the service rules.
 */
export function ApiKeys({ user, session, mayAct }: { user: User; session: Session; mayAct: boolean }) {
  const keys = useQuery(apiKeysQuery(user.guid));
  const [notice, setNotice] = useState<Notice | null>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  // Revoked keys stay listed, marked so, with their History: a key that vanished could not be looked into.
  const listed = keys.data ?? [];
  return (
    <section className={styles.card} aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p className={styles.muted}>
        For integrations (for example POST /api/Invoke/…): sent in the x-api-key header. Not affected by
        logout, password changes or Revoke Sessions; revoke a key here.
      </p>
      {notice && <Alert tone={notice.tone}>{notice.text}</Alert>}
      {created && <NewKey created={created} onStored={() => setCreated(null)} />}
      {keys.isError && <Alert tone="error">{securityError(keys.error)}</Alert>}
      {keys.data && listed.length === 0 && <p>This user has no API key.</p>}
      {listed.length > 0 && (
        <KeyTable user={user} session={session} keys={listed} mayRevoke={mayAct} onNotice={setNotice} />
      )}
      {mayAct && (
        <GenerateKey
          user={user}
          onCreated={(key) => {
            setNotice(null);
            setCreated(key);
          }}
          onNotice={setNotice}
        />
      )}
    </section>
  );
}

/** The raw key, once: a read-only field with Copy (the clipboard, or the field selected where there is none). */
function NewKey({ created, onStored }: { created: CreatedApiKey; onStored: () => void }) {
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      // No clipboard (a plain-HTTP host): the key is selected for Ctrl+C instead.
      field.current?.select();
    }
  }
  return (
    <div className={styles.card} aria-labelledby="new-key-title" role="region">
      <h3 id="new-key-title">The new key “{created.name}”</h3>
      <Alert tone="warning">
        Copy the key now and store it safely. It will not be shown again: the service keeps only its hash.
      </Alert>
      <div className={styles.key}>
        <label htmlFor="new-api-key" className={hidden.visuallyHidden}>
          The new API key
        </label>
        <input id="new-api-key" ref={field} readOnly value={created.key} onFocus={(e) => e.target.select()} />
        <button type="button" className={formStyles.secondary} onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
      <div className={formStyles.actions}>
        <button type="button" className={formStyles.primary} onClick={onStored}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

/** On a phone: Name and State; the identifier, description, creation and actions in each row's details. */
function keyColumns(
  session: Session,
  onRevoke: (key: ApiKey) => (() => void) | undefined,
): KeyedColumn<ApiKey>[] {
  return [
    { id: 'identifier', label: 'Identifier', className: styles.mono, cell: (k) => `${k.displayIdentifier}…` },
    { id: 'name', label: 'Name', keyColumn: true, cell: (k) => k.name },
    { id: 'description', label: 'Description', cell: (k) => k.description ?? '—' },
    {
      id: 'created',
      label: 'Created',
      cell: (k) => `${formatDateTime(Date.parse(k.createdDate))} by ${k.createdUser}`,
    },
    { id: 'state', label: 'State', keyColumn: true, cell: (k) => <KeyState apiKey={k} /> },
    {
      id: 'actions',
      label: 'Actions',
      hiddenLabel: true,
      cell: (k) => <KeyActions apiKey={k} session={session} onRevoke={onRevoke(k)} />,
    },
  ];
}

/** Active, or revoked (when and by whom). */
function KeyState({ apiKey: k }: { apiKey: ApiKey }) {
  return k.revokedDate ? (
    <span className={`${styles.badge} ${styles.off}`}>
      Revoked {formatDateTime(Date.parse(k.revokedDate))}
      {k.revokedUser ? ` by ${k.revokedUser}` : ''}
    </span>
  ) : (
    <span className={`${styles.badge} ${styles.ok}`}>Active</span>
  );
}

/** The key's History; Revoke only where offered. */
function KeyActions({
  apiKey: k,
  session,
  onRevoke,
}: {
  apiKey: ApiKey;
  session: Session;
  onRevoke?: () => void;
}) {
  return (
    <>
      <HistoryLink session={session} guid={k.guid} label={`History of the key ${k.name}`} />{' '}
      {onRevoke && (
        <button
          type="button"
          className={`${formStyles.secondary} ${styles.danger}`}
          onClick={onRevoke}
          aria-label={`Revoke the key ${k.name}`}
        >
          Revoke
        </button>
      )}
    </>
  );
}

/** The keys, active and revoked; an active one is revoked after a question. */
function KeyTable({
  user,
  session,
  keys,
  mayRevoke,
  onNotice,
}: {
  user: User;
  session: Session;
  keys: ApiKey[];
  mayRevoke: boolean;
  onNotice: (n: Notice) => void;
}) {
  const queryClient = useQueryClient();
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const revoke = useMutation({
    mutationFn: (key: ApiKey) =>
      done(api.DELETE('/api/UserRegistryApiKey/{guid}', { params: { path: { guid: key.guid } } })),
    onSuccess: (_r, key) => {
      setRevoking(null);
      onNotice({ tone: 'success', text: `The key ${key.displayIdentifier}… (${key.name}) is revoked.` });
      void queryClient.invalidateQueries({ queryKey: apiKeysQuery(user.guid).queryKey });
    },
    onError: (err) => {
      setRevoking(null);
      onNotice({ tone: 'error', text: securityError(err) });
    },
  });
  return (
    <>
      <div className={styles.tableBox}>
        <KeyedTable
          className={styles.table}
          labelledBy="keys-title"
          rows={keys}
          columns={keyColumns(session, (k) =>
            mayRevoke && !k.revokedDate ? () => setRevoking(k) : undefined,
          )}
          rowKey={(k) => k.guid}
          rowName={(k) => `the key ${k.name}`}
          rowData={(k) => ({ 'data-key-guid': k.guid })}
        />
      </div>
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
    </>
  );
}

/** Generate API Key: Name (required), Description (optional), Save. */
function GenerateKey({
  user,
  onCreated,
  onNotice,
}: {
  user: User;
  onCreated: (key: CreatedApiKey) => void;
  onNotice: (n: Notice) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
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
      onCreated(key);
      setName('');
      setDescription('');
      void queryClient.invalidateQueries({ queryKey: apiKeysQuery(user.guid).queryKey });
    },
    onError: (err) => onNotice({ tone: 'error', text: securityError(err) }),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    if (!name.trim()) return onNotice({ tone: 'error', text: 'Enter a name for the key.' });
    generate.mutate();
  }
  return (
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
  );
}

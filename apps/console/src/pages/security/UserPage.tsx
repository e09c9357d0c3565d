import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useOutletContext, useParams } from 'react-router';
import { api, done, ifMatch, unwrap } from '../../api/client';
import { signInOptionsQuery, type Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { lengthRule } from '../../components/password-rules';
import { usePageTitle } from '../../components/page-title';
import { formatDateTime } from '../../components/time';
import { ApiKeys } from './ApiKeys';
import { Check, RoleChoice, tenantName } from './controls';
import { administeredPassword } from './passwords';
import { userQuery, usersQuery, type User } from './queries';
import styles from './security.module.css';
import { securityError, useDirectory, UserState } from './UsersPage';

const when = (iso: string | null | undefined) => (iso ? formatDateTime(Date.parse(iso)) : '—');

type Action = 'deactivate' | 'activate' | 'unlock' | 'revoke' | 'delete';

const CONFIRM: Record<
  Exclude<Action, 'activate' | 'unlock'>,
  { title: string; confirm: string; text: string }
> = {
  deactivate: {
    title: 'Deactivate this user?',
    confirm: 'Deactivate',
    text: 'The user can no longer sign in; their sessions and API keys stop working at once.',
  },
  revoke: {
    title: 'Revoke every session of this user?',
    confirm: 'Revoke Sessions',
    text: 'Every browser signed in as this user is signed out at its next request, and its open live views close. API keys are not affected.',
  },
  delete: {
    title: 'Delete this user?',
    confirm: 'Delete user',
    text: 'The user is deleted (kept in the records as deleted): they can no longer sign in and their API keys stop working.',
  },
};

/** Security → Users → a user: edit, deactivate, unlock, delete, Reset password, Revoke Sessions, API keys. */
export function UserPage() {
  const session = useOutletContext<Session>();
  const { guid = '' } = useParams();
  const user = useQuery(userQuery(guid));
  usePageTitle(user.data ? `User ${user.data.name}` : 'User');
  return (
    <>
      <p>
        <Link to="/Security/Users">← Users</Link>
      </p>
      {user.isError && <Alert tone="error">{securityError(user.error)}</Alert>}
      {user.isPending && <p role="status">Loading the user…</p>}
      {user.data && <UserView key={user.data.guid} user={user.data} session={session} />}
    </>
  );
}

function UserView({ user, session }: { user: User; session: Session }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { roles, tenants } = useDirectory(session);
  const own = { guid: session.tenantGuid, name: session.tenantName };
  const [asking, setAsking] = useState<Action | null>(null);
  const [message, setMessage] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);

  const refresh = (next?: User) => {
    if (next) queryClient.setQueryData(userQuery(user.guid).queryKey, next);
    void queryClient.invalidateQueries({ queryKey: usersQuery.queryKey });
  };

  const act = useMutation({
    mutationFn: async (action: Action): Promise<User | null> => {
      const path = { params: { path: { guid: user.guid } } };
      switch (action) {
        case 'deactivate':
          return (await unwrap(api.POST('/api/UserRegistry/{guid}/Deactivate', path))).data;
        case 'activate':
          return (await unwrap(api.PUT('/api/UserRegistry/{guid}', { ...path, body: { active: true } })))
            .data;
        case 'unlock':
          return (await unwrap(api.POST('/api/UserRegistry/{guid}/Unlock', path))).data;
        case 'revoke':
          await done(
            api.POST('/api/UserRegistry/RevokeTokens/{id}', { params: { path: { id: user.guid } } }),
          );
          return null;
        case 'delete':
          await done(api.DELETE('/api/UserRegistry/{guid}', path));
          return null;
      }
    },
    onSuccess: (next, action) => {
      setAsking(null);
      if (action === 'delete') {
        refresh();
        void navigate('/Security/Users');
        return;
      }
      if (next) refresh(next);
      setMessage({
        tone: 'success',
        text: {
          deactivate: `${user.name} is deactivated.`,
          activate: `${user.name} is active again.`,
          unlock: `${user.name} is unlocked.`,
          revoke: `Every session of ${user.name} has ended.`,
          delete: '',
        }[action],
      });
    },
    onError: (err) => {
      setAsking(null);
      setMessage({ tone: 'error', text: securityError(err) });
    },
  });

  const confirm = asking && asking !== 'activate' && asking !== 'unlock' ? CONFIRM[asking] : null;
  const roleName = roles?.find((r) => r.guid === user.roleGuid)?.name ?? user.roleGuid;

  return (
    <>
      <h1>
        {user.name} <UserState user={user} />
      </h1>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}

      <div className={styles.columns}>
        <section className={styles.card} aria-labelledby="user-facts-title">
          <h2 id="user-facts-title">Details</h2>
          <dl className={styles.facts}>
            <dt>Tenant</dt>
            <dd>{tenantName(tenants, user.tenantGuid, own)}</dd>
            <dt>Role</dt>
            <dd>{roleName}</dd>
            <dt>E-mail</dt>
            <dd>{user.email ?? '—'}</dd>
            <dt>Password</dt>
            <dd>
              {!user.hasPassword
                ? 'none (signs in elsewhere)'
                : user.passwordExpiryDate
                  ? `set, expires ${when(user.passwordExpiryDate)}`
                  : 'set, does not expire'}
            </dd>
            <dt>Failed attempts</dt>
            <dd>{user.failedPasswordCount}</dd>
            <dt>Locked since</dt>
            <dd>{when(user.passwordLockedDate)}</dd>
            <dt>Last sign-in</dt>
            <dd>{when(user.lastLoginDate)}</dd>
            <dt>Created</dt>
            <dd>{when(user.createdDate)}</dd>
            <dt>Identifier</dt>
            <dd className={styles.mono}>{user.guid}</dd>
          </dl>
        </section>

        <section className={styles.card} aria-labelledby="user-actions-title">
          <h2 id="user-actions-title">Actions</h2>
          <div className={styles.row}>
            {user.active ? (
              <button type="button" className={formStyles.secondary} onClick={() => setAsking('deactivate')}>
                Deactivate
              </button>
            ) : (
              <button type="button" className={formStyles.secondary} onClick={() => act.mutate('activate')}>
                Activate
              </button>
            )}
            {user.passwordLocked && (
              <button type="button" className={formStyles.secondary} onClick={() => act.mutate('unlock')}>
                Unlock
              </button>
            )}
            <button type="button" className={formStyles.secondary} onClick={() => setAsking('revoke')}>
              Revoke Sessions
            </button>
            <button
              type="button"
              className={`${formStyles.secondary} ${styles.danger}`}
              onClick={() => setAsking('delete')}
            >
              Delete user
            </button>
          </div>
          <EditUser
            user={user}
            session={session}
            onSaved={(next) => {
              refresh(next);
              setMessage({ tone: 'success', text: 'The changes are saved.' });
            }}
          />
        </section>
      </div>

      <ResetPassword
        user={user}
        onReset={(next) => {
          refresh(next);
          setMessage({ tone: 'success', text: `The password of ${user.name} is reset.` });
        }}
      />

      <ApiKeys user={user} session={session} />

      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.title ?? ''}
        confirm={confirm?.confirm ?? ''}
        busy={act.isPending}
        onConfirm={() => asking && act.mutate(asking)}
        onCancel={() => setAsking(null)}
      >
        <p>{confirm?.text}</p>
      </ConfirmDialog>
    </>
  );
}

function EditUser({
  user,
  session,
  onSaved,
}: {
  user: User;
  session: Session;
  onSaved: (user: User) => void;
}) {
  const { roles, tenants } = useDirectory(session);
  const [email, setEmail] = useState(user.email ?? '');
  const [roleGuid, setRoleGuid] = useState(user.roleGuid);
  const [error, setError] = useState<string | null>(null);
  // Roles of the user's own tenant only: a user stays in its tenant.
  const choices = roles?.filter((r) => r.tenantGuid === user.tenantGuid);
  const save = useMutation({
    mutationFn: async () =>
      (
        await unwrap(
          api.PUT('/api/UserRegistry/{guid}', {
            params: { path: { guid: user.guid }, header: ifMatch(user) },
            body: { email: email.trim() || null, roleGuid },
          }),
        )
      ).data,
    onSuccess: onSaved,
    onError: (err) => setError(securityError(err)),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    save.mutate();
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="edit-user-title">
      <h3 id="edit-user-title">Edit</h3>
      {error && <Alert tone="error">{error}</Alert>}
      <Field id="edit-user-email" label="E-mail" type="email" value={email} onChange={setEmail} />
      <RoleChoice
        id="edit-user-role"
        roles={choices}
        tenants={tenants}
        own={{ guid: session.tenantGuid, name: session.tenantName }}
        value={roleGuid}
        onChange={setRoleGuid}
      />
      <div className={formStyles.actions}>
        <button type="submit" className={formStyles.primary} disabled={save.isPending}>
          Save changes
        </button>
      </div>
    </form>
  );
}

/**
 * Reset password: the WirePasswordHash choice is made here, with the password (the flag never changes
 * without one). With the flag the browser checks the rules and sends only the hash.
 */
function ResetPassword({ user, onReset }: { user: User; onReset: (user: User) => void }) {
  const options = useQuery(signInOptionsQuery);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [expired, setExpired] = useState(true);
  const [wire, setWire] = useState(user.wirePasswordHash);
  const [error, setError] = useState<string | null>(null);
  const reset = useMutation({
    mutationFn: async (value: string) =>
      (
        await unwrap(
          api.POST('/api/UserRegistry/{guid}/ResetPassword', {
            params: { path: { guid: user.guid } },
            body: { password: value, passwordExpired: expired, wirePasswordHash: wire },
          }),
        )
      ).data,
    onSuccess: (next) => {
      setPassword('');
      setRepeat('');
      onReset(next);
    },
    onError: (err) => setError(securityError(err)),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!options.data) return setError('The password rules are still loading; try again.');
    const checked = administeredPassword(options.data, user.name, password, repeat, wire);
    if ('error' in checked) return setError(checked.error);
    reset.mutate(checked.value);
  }
  return (
    <section className={styles.card} aria-labelledby="reset-title">
      <h2 id="reset-title">Reset password</h2>
      <form onSubmit={submit} noValidate aria-busy={reset.isPending}>
        {error && <Alert tone="error">{error}</Alert>}
        <div className={styles.columns}>
          <div>
            <Field
              id="reset-password"
              label="New password"
              type="password"
              value={password}
              onChange={setPassword}
              autoComplete="new-password"
              hint={options.data ? lengthRule(options.data) : undefined}
            />
            <Field
              id="reset-repeat"
              label="Repeat the new password"
              type="password"
              value={repeat}
              onChange={setRepeat}
              autoComplete="new-password"
            />
          </div>
          <div>
            <Check
              id="reset-expired"
              label="Must change it at the next sign-in"
              checked={expired}
              onChange={setExpired}
            />
            <Check
              id="reset-wire"
              label="WirePasswordHash"
              checked={wire}
              onChange={setWire}
              hint="The browser sends SHA-256 of the password and the user name instead of the password, at sign-in and here. The flag changes only with a new password; the rules above are then checked only in the browser."
            />
          </div>
        </div>
        <div className={formStyles.actions}>
          <button type="submit" className={formStyles.primary} disabled={reset.isPending}>
            Reset password
          </button>
        </div>
      </form>
    </section>
  );
}

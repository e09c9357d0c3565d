import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useOutletContext, useParams } from 'react-router';
import type { Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { usePageTitle } from '../../components/page-title';
import { formatDateTime } from '../../components/time';
import { ApiKeys } from './ApiKeys';
import { securityError, UserState, useNames } from './controls';
import { USERS_KEY, userQuery, type User } from './queries';
import styles from './security.module.css';
import { HistoryLink } from './HistoryLink';
import { UserActions } from './UserActions';
import { EditUser, ResetPassword } from './UserForms';
import { allowedActions } from './user-actions';

const when = (iso: string | null | undefined) => (iso ? formatDateTime(Date.parse(iso)) : '—');

/** Security → Users → a user: details, the actions the service allows, Edit, Reset password, API keys. */
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
  const [message, setMessage] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  const changed = (next: User, text: string) => {
    queryClient.setQueryData(userQuery(user.guid).queryKey, next);
    void queryClient.invalidateQueries({ queryKey: USERS_KEY });
    setMessage({ tone: 'success', text });
  };
  return (
    <>
      <h1>
        {user.name} <UserState user={user} />
      </h1>
      <p>
        <HistoryLink session={session} guid={user.guid} label={`History of the user ${user.name}`} />
      </p>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
      <div className={styles.columns}>
        <UserDetails user={user} session={session} />
        <section className={styles.card} aria-labelledby="user-actions-title">
          <h2 id="user-actions-title">Actions</h2>
          <UserActions user={user} session={session} onMessage={setMessage} />
          <EditUser
            user={user}
            session={session}
            onSaved={(next) => changed(next, 'The changes are saved.')}
          />
        </section>
      </div>
      {user.guid === session.userGuid ? (
        <section className={styles.card} aria-labelledby="own-password-title">
          <h2 id="own-password-title">Password</h2>
          <p className={styles.muted}>
            Your own password is changed with the current one (Change password), never reset here.
          </p>
        </section>
      ) : (
        <ResetPassword
          user={user}
          onReset={(next) => changed(next, `The password of ${user.name} is reset.`)}
        />
      )}
      {allowedActions(user, session).apiKeys ? (
        <ApiKeys user={user} session={session} />
      ) : (
        <section className={styles.card} aria-labelledby="keys-title">
          <h2 id="keys-title">API keys</h2>
          <p className={styles.muted}>
            API keys are listed, generated and revoked only for users of your own tenant.
          </p>
        </section>
      )}
    </>
  );
}

function UserDetails({ user, session }: { user: User; session: Session }) {
  const { roleName, tenantName } = useNames(session);
  return (
    <section className={styles.card} aria-labelledby="user-facts-title">
      <h2 id="user-facts-title">Details</h2>
      <dl className={styles.facts}>
        <dt>Tenant</dt>
        <dd>{tenantName(user.tenantGuid)}</dd>
        <dt>Role</dt>
        <dd>{roleName(user.roleGuid)}</dd>
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
        <dt>Lock lifts</dt>
        <dd>
          {!user.passwordLocked
            ? '—'
            : user.passwordLockedUntil
              ? `${when(user.passwordLockedUntil)} by itself, or at Unlock (sessions keep working)`
              : 'at Unlock (sessions keep working)'}
        </dd>
        <dt>Last sign-in</dt>
        <dd>{when(user.lastLoginDate)}</dd>
        <dt>Created</dt>
        <dd>{when(user.createdDate)}</dd>
        <dt>Identifier</dt>
        <dd className={styles.mono}>{user.guid}</dd>
      </dl>
    </section>
  );
}

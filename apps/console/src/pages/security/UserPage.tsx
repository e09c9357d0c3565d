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
import { allowedActions, mayActOn } from './user-actions';
import { Loading } from '../../components/Loading';
import { NotFoundPage } from '../not-found/NotFoundPage';

const when = (iso: string | null | undefined) => (iso ? formatDateTime(Date.parse(iso)) : '—');

/** Security → Users → a user: details, the actions the service allows, Edit, Reset password, API keys. */
export function UserPage() {
  const { guid = '' } = useParams();
  // An address that names no user (/Security/Users/New typed by hand) is a page that does not exist.
  if (!GUID.test(guid)) return <NotFoundPage />;
  return <UserLoader guid={guid} />;
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function UserLoader({ guid }: { guid: string }) {
  const session = useOutletContext<Session>();
  const user = useQuery(userQuery(guid));
  const { choices, settled } = useNames(session);
  usePageTitle(user.data ? `User ${user.data.name}` : 'User');
  return (
    <>
      <p>
        <Link to="/Security/Users">← Users</Link>
      </p>
      {user.isError && <Alert tone="error">{securityError(user.error)}</Alert>}
      {(user.isPending || (user.data && !settled)) && <Loading what="the user" />}
      {user.data && settled && (
        <UserView
          key={user.data.guid}
          user={user.data}
          session={session}
          allowed={allowedActions(user.data, session, mayActOn(user.data, choices ?? []))}
          readAt={user.dataUpdatedAt}
        />
      )}
    </>
  );
}

function UserView({
  user,
  session,
  allowed,
  readAt,
}: {
  user: User;
  session: Session;
  allowed: ReturnType<typeof allowedActions>;
  /** When the user's answer arrived (what "must change the password" is judged against). */
  readAt: number;
}) {
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
        <UserDetails user={user} session={session} readAt={readAt} />
        <section className={styles.card} aria-labelledby="user-actions-title">
          <h2 id="user-actions-title">Actions</h2>
          <UserActions user={user} allowed={allowed} onMessage={setMessage} />
          {allowed.mayAct && (
            <EditUser
              user={user}
              session={session}
              onSaved={(next) => changed(next, 'The changes are saved.')}
            />
          )}
        </section>
      </div>
      {!allowed.mayAct ? null : user.guid === session.userGuid ? (
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
      {allowed.apiKeys ? (
        <ApiKeys user={user} session={session} mayAct={allowed.mayAct} />
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

/**
 * What the password means for the next sign-in: none, one that must be changed then (an expiry already past:
 * a reset with "must change it" expires it at once), one that expires later, or one that does not; as of
 * `readAt`, when the answer arrived.
 */
function PasswordState({ user, readAt }: { user: User; readAt: number }) {
  if (!user.hasPassword) return <>none (signs in elsewhere)</>;
  if (!user.passwordExpiryDate) return <>set, does not expire</>;
  if (Date.parse(user.passwordExpiryDate) <= readAt)
    return <>set; must change the password at the next sign-in</>;
  return <>set, expires {when(user.passwordExpiryDate)}</>;
}

function UserDetails({ user, session, readAt }: { user: User; session: Session; readAt: number }) {
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
          <PasswordState user={user} readAt={readAt} />
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

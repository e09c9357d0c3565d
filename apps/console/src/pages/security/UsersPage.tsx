import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate, useOutletContext } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { ApiError, describeError } from '../../api/problem';
import { signInOptionsQuery, type Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { lengthRule } from '../../components/password-rules';
import { usePageTitle } from '../../components/page-title';
import { allows, PERMISSION } from '../../components/permissions';
import { formatDateTime } from '../../components/time';
import { Check, RoleChoice, tenantName } from './controls';
import { administeredPassword } from './passwords';
import { rolesQuery, tenantsQuery, usersQuery, type Role, type Tenant, type User } from './queries';
import styles from './security.module.css';

/** What a refused Security request means here: 403 is "not permitted", the rest as everywhere. */
export function securityError(error: unknown): string {
  if (error instanceof ApiError && error.status === 403)
    return 'Not permitted: your account may not do this. Ask an administrator if you need it.';
  return describeError(error);
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

/** The roles and tenants, when the caller may read them (the pages work without, showing identifiers). */
export function useDirectory(session: Session): { roles?: Role[]; tenants?: Tenant[] } {
  const roles = useQuery({
    ...rolesQuery,
    enabled: allows(session, { permission: PERMISSION.ReadWriteSecurityRole }),
  });
  const tenants = useQuery({
    ...tenantsQuery,
    enabled: allows(session, { permission: PERMISSION.ReadWriteTenant, landlord: true }),
  });
  return { roles: roles.data, tenants: tenants.data };
}

/** Security → Users: the users of the tenant (the landlord sees every tenant's), and a new one. */
export function UsersPage() {
  const session = useOutletContext<Session>();
  usePageTitle('Users');
  const users = useQuery(usersQuery);
  const { roles, tenants } = useDirectory(session);
  const [creating, setCreating] = useState(false);
  const own = { guid: session.tenantGuid, name: session.tenantName };
  const roleName = (guid: string) => roles?.find((r) => r.guid === guid)?.name ?? guid;

  return (
    <>
      <h1>Users</h1>
      <p className={styles.lead}>
        {session.landlord
          ? 'Every tenant’s users (you are in the landlord tenant).'
          : `The users of ${session.tenantName ?? 'your tenant'}.`}{' '}
        Open a user to edit, reset the password, revoke sessions or generate an API key.
      </p>
      {!creating && (
        <p>
          <button type="button" className={formStyles.primary} onClick={() => setCreating(true)}>
            New user
          </button>
        </p>
      )}
      {creating && (
        <CreateUser session={session} roles={roles} tenants={tenants} onDone={() => setCreating(false)} />
      )}
      {users.isError && <Alert tone="error">{securityError(users.error)}</Alert>}
      {users.isPending && <p role="status">Loading users…</p>}
      {users.data && (
        <section className={styles.card} aria-labelledby="users-title">
          <h2 id="users-title">
            {users.data.length} {users.data.length === 1 ? 'user' : 'users'}
          </h2>
          <table className={styles.table}>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Tenant</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">Last sign-in</th>
              </tr>
            </thead>
            <tbody>
              {users.data.map((u) => (
                <tr key={u.guid}>
                  <td>
                    <Link to={`/Security/Users/${u.guid}`}>{u.name}</Link>
                  </td>
                  <td>{tenantName(tenants, u.tenantGuid, own)}</td>
                  <td>{roleName(u.roleGuid)}</td>
                  <td>
                    <UserState user={u} />
                  </td>
                  <td>{u.lastLoginDate ? formatDateTime(Date.parse(u.lastLoginDate)) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
    </>
  );
}

function CreateUser({
  session,
  roles,
  tenants,
  onDone,
}: {
  session: Session;
  roles?: Role[];
  tenants?: Tenant[];
  onDone: () => void;
}) {
  const options = useQuery(signInOptionsQuery);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [roleGuid, setRoleGuid] = useState('');
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [expired, setExpired] = useState(true);
  const [wire, setWire] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const create = useMutation({
    // (The document does not declare this answer yet, issue 17: it is the UserDto the service returns.)
    mutationFn: async (body: Schemas['CreateUserDto']) =>
      (await unwrap(api.POST('/api/UserRegistry', { body }))).data,
    onSuccess: (user) => {
      void queryClient.invalidateQueries({ queryKey: usersQuery.queryKey });
      void navigate(`/Security/Users/${user.guid}`);
    },
    onError: (err) => setError(securityError(err)),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!name.trim()) return setError('Enter the user name.');
    if (!roleGuid) return setError('Choose the role.');
    let sent: string | undefined;
    if (password || repeat) {
      if (!options.data) return setError('The password rules are still loading; try again.');
      const checked = administeredPassword(options.data, name, password, repeat, wire);
      if ('error' in checked) return setError(checked.error);
      sent = checked.value;
    }
    create.mutate({
      name: name.trim(),
      email: email.trim() || null,
      roleGuid,
      ...(sent !== undefined ? { password: sent, passwordExpired: expired, wirePasswordHash: wire } : {}),
    });
  }

  return (
    <section className={styles.card} aria-labelledby="new-user-title">
      <h2 id="new-user-title">New user</h2>
      <form onSubmit={submit} noValidate aria-busy={create.isPending}>
        {error && <Alert tone="error">{error}</Alert>}
        <div className={styles.columns}>
          <div>
            <Field id="new-user-name" label="User name" value={name} onChange={setName} autoComplete="off" />
            <Field
              id="new-user-email"
              label="E-mail (optional)"
              type="email"
              value={email}
              onChange={setEmail}
              autoComplete="off"
            />
            <RoleChoice
              id="new-user-role"
              roles={roles}
              tenants={tenants}
              own={{ guid: session.tenantGuid, name: session.tenantName }}
              value={roleGuid}
              onChange={setRoleGuid}
            />
          </div>
          <div>
            <Field
              id="new-user-password"
              label="Initial password (optional)"
              type="password"
              value={password}
              onChange={setPassword}
              autoComplete="new-password"
              hint={`${options.data ? lengthRule(options.data) : ''} Leave empty for a user who signs in through OpenID Connect or Negotiate.`}
            />
            <Field
              id="new-user-repeat"
              label="Repeat the password"
              type="password"
              value={repeat}
              onChange={setRepeat}
              autoComplete="new-password"
            />
            <Check
              id="new-user-expired"
              label="Must change the password at first sign-in"
              checked={expired}
              onChange={setExpired}
            />
            <Check
              id="new-user-wire"
              label="WirePasswordHash"
              checked={wire}
              onChange={setWire}
              hint="The browser sends a SHA-256 hash of the password instead of the password; its strength is then checked only in the browser."
            />
          </div>
        </div>
        <div className={formStyles.actions}>
          <button type="button" className={formStyles.secondary} onClick={onDone}>
            Cancel
          </button>
          <button type="submit" className={formStyles.primary} disabled={create.isPending}>
            Create user
          </button>
        </div>
      </form>
    </section>
  );
}

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useOutletContext, useSearchParams } from 'react-router';
import type { Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { KeyedTable, type KeyedColumn } from '../../components/KeyedTable';
import formStyles from '../../components/forms.module.css';
import { usePageTitle } from '../../components/page-title';
import { allows, PERMISSION } from '../../components/permissions';
import { formatDateTime } from '../../components/time';
import { refused, securityError, UserState, useNames } from './controls';
import { CreateUser } from './CreateUser';
import { USERS_PAGE, usersPageQuery, type ListPage, type User } from './queries';
import styles from './security.module.css';
import { Loading } from '../../components/Loading';

/** Security → Users: the tenant's users (the landlord sees every tenant's), searched and paged by the service. */
export function UsersPage() {
  const session = useOutletContext<Session>();
  usePageTitle('Users');
  const [params, setParams] = useSearchParams();
  const search = params.get('search') ?? '';
  const cursor = params.get('cursor');
  const page = Math.max(1, Number(params.get('page')) || 1);
  const users = useQuery({ ...usersPageQuery(search, cursor), placeholderData: keepPreviousData });
  const [creating, setCreating] = useState(false);
  const { choices } = useNames(session);
  // Offered only where the service would accept it: the right permission, a list that was not refused, and
  // at least one role the caller may give (every new user needs one).
  const mayCreate =
    allows(session, { permission: PERMISSION.ReadWriteSecurityUser }) &&
    !refused(users.error) &&
    (choices?.length ?? 0) > 0;
  const go = (next: Record<string, string>) =>
    setParams(new URLSearchParams(Object.entries(next).filter(([, v]) => v)));

  return (
    <>
      <h1>Users</h1>
      <p className={styles.lead}>
        {session.landlord
          ? 'Every tenant’s users (you are in the landlord tenant).'
          : `The users of ${session.tenantName ?? 'your tenant'}.`}{' '}
        Open a user to edit, reset the password, revoke sessions or generate an API key.
      </p>
      {mayCreate && !creating && (
        <p>
          <button type="button" className={formStyles.primary} onClick={() => setCreating(true)}>
            New user
          </button>
        </p>
      )}
      {mayCreate && creating && <CreateUser session={session} onDone={() => setCreating(false)} />}
      {users.isError && <Alert tone="error">{securityError(users.error)}</Alert>}
      {!refused(users.error) && (
        <UserSearch key={search} search={search} onSearch={(s) => go({ search: s })} />
      )}
      {users.isPending && <Loading what="users" />}
      {users.data && (
        <section className={styles.card} aria-labelledby="users-title">
          <h2 id="users-title">{countTitle(users.data, page, search)}</h2>
          <UsersTable users={users.data.items} session={session} />
          <UsersPager
            data={users.data}
            page={page}
            onFirst={() => go({ search })}
            onNext={(next) => go({ search, cursor: next, page: String(page + 1) })}
          />
        </section>
      )}
    </>
  );
}

function countTitle(data: ListPage<User>, page: number, search: string): string {
  const found = search ? ` whose name holds “${search}”` : '';
  if (data.total <= USERS_PAGE && page === 1)
    return `${data.total} ${data.total === 1 ? 'user' : 'users'}${found}`;
  const first = (page - 1) * USERS_PAGE + 1;
  return `Users ${data.items.length ? first : 0}–${first + data.items.length - 1} of ${data.total}${found}`;
}

/** The service's search: part of a user name, any letter case. */
function UserSearch({ search, onSearch }: { search: string; onSearch: (search: string) => void }) {
  const [text, setText] = useState(search);
  function submit(event: FormEvent) {
    event.preventDefault();
    onSearch(text.trim());
  }
  return (
    <form className={styles.search} role="search" onSubmit={submit} aria-label="Search the users">
      <label htmlFor="users-search" className={formStyles.label}>
        Search by name
      </label>
      <div className={styles.row}>
        <input
          id="users-search"
          type="search"
          className={formStyles.input}
          value={text}
          maxLength={256}
          onChange={(e) => setText(e.target.value)}
        />
        <button type="submit" className={formStyles.secondary}>
          Search
        </button>
      </div>
    </form>
  );
}

/** On a phone: Name (the user's page) and State, the rest in each row's details. */
function UsersTable({ users, session }: { users: User[]; session: Session }) {
  const { roleName, tenantName } = useNames(session);
  if (users.length === 0) return <p>No user matches.</p>;
  const columns: KeyedColumn<User>[] = [
    {
      id: 'name',
      label: 'Name',
      keyColumn: true,
      cell: (u) => <Link to={`/Security/Users/${u.guid}`}>{u.name}</Link>,
    },
    { id: 'tenant', label: 'Tenant', cell: (u) => tenantName(u.tenantGuid) },
    { id: 'role', label: 'Role', cell: (u) => roleName(u.roleGuid) },
    { id: 'state', label: 'State', keyColumn: true, cell: (u) => <UserState user={u} /> },
    {
      id: 'lastLogin',
      label: 'Last sign-in',
      cell: (u) => (u.lastLoginDate ? formatDateTime(Date.parse(u.lastLoginDate)) : '—'),
    },
  ];
  return (
    <div className={styles.tableBox}>
      <KeyedTable
        className={styles.table}
        rows={users}
        columns={columns}
        rowKey={(u) => u.guid}
        rowName={(u) => `the user ${u.name}`}
        rowData={(u) => ({ 'data-user-guid': u.guid })}
      />
    </div>
  );
}

/** First page / Next page, from the service's cursor (Link: rel="next"). */
function UsersPager({
  data,
  page,
  onFirst,
  onNext,
}: {
  data: ListPage<User>;
  page: number;
  onFirst: () => void;
  onNext: (cursor: string) => void;
}) {
  if (page === 1 && data.next === null) return null;
  return (
    <nav className={styles.pager} aria-label="Pages of users">
      <button type="button" className={formStyles.secondary} disabled={page === 1} onClick={onFirst}>
        First page
      </button>
      <button
        type="button"
        className={formStyles.secondary}
        disabled={data.next === null}
        onClick={() => data.next && onNext(data.next)}
      >
        Next page
      </button>
      <span>
        Page {page} of {Math.max(1, Math.ceil(data.total / USERS_PAGE))}
      </span>
    </nav>
  );
}

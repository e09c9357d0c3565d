import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, Outlet, useLocation } from 'react-router';
import { ApiError, describeError } from '../../api/problem';
import { sessionQuery, signInOptionsQuery, type Session } from '../../api/queries';
import { Alert } from '../Alert';
import { Brand } from '../Brand';
import { here, loginUrl } from '../return-url';
import { ChangePasswordDialog } from './ChangePasswordDialog';
import { Navigation } from './Navigation';
import { SessionExpiry } from './SessionExpiry';
import styles from './shell.module.css';

/**
 * The frame of every signed-in page: the user and tenant, the session's end, Change password, the API
 * explorer and Log out. A session that is gone (401) goes back to the Login page, coming back here.
 */
export function Shell() {
  const session = useQuery(sessionQuery);
  const options = useQuery(signInOptionsQuery);
  const [changing, setChanging] = useState(false);
  // On a phone the navigation is behind the Menu button, open for the page it was opened on: choosing a
  // page closes it.
  const { pathname } = useLocation();
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null);
  const menuOpen = menuOpenOn === pathname;
  const ended = session.error instanceof ApiError && session.error.status === 401;

  useEffect(() => {
    if (ended) window.location.assign(loginUrl(here(), true));
  }, [ended]);

  if (session.isPending || ended)
    return (
      <p role="status" className={styles.loading}>
        Loading…
      </p>
    );
  if (session.isError)
    return (
      <main className={styles.main}>
        <Alert tone="error">{describeError(session.error)}</Alert>
      </main>
    );

  const user = session.data;
  return (
    <div className={styles.shell}>
      <a className={styles.skip} href="#main">
        Skip to the page
      </a>
      <ShellHeader
        session={user}
        menuOpen={menuOpen}
        onMenu={() => setMenuOpenOn(menuOpen ? null : pathname)}
        onChangePassword={options.data?.mode === 'password' ? () => setChanging(true) : undefined}
      />
      <SessionExpiry session={user} />
      <div className={styles.body}>
        <Navigation session={user} open={menuOpen} />
        <main id="main" className={styles.main}>
          <Outlet context={user} />
        </main>
      </div>
      {options.data?.mode === 'password' && (
        <ChangePasswordDialog
          open={changing}
          onClose={() => setChanging(false)}
          session={user}
          options={options.data}
        />
      )}
    </div>
  );
}

/** The header: home, the Menu button (a phone's), the user and tenant, the account's links. */
function ShellHeader({
  session: user,
  menuOpen,
  onMenu,
  onChangePassword,
}: {
  session: Session;
  menuOpen: boolean;
  onMenu: () => void;
  onChangePassword?: () => void;
}) {
  return (
    <header className={styles.header}>
      <Link to="/" className={styles.home} aria-label="Decisioning operations, console home">
        <Brand inverse />
      </Link>
      <button
        type="button"
        className={styles.menu}
        aria-expanded={menuOpen}
        aria-controls="console-navigation"
        onClick={onMenu}
      >
        {menuOpen ? 'Close menu' : 'Menu'}
      </button>
      <div className={styles.who}>
        <span>
          <span className={styles.muted}>User</span> <strong>{user.userName}</strong>
        </span>
        <span>
          <span className={styles.muted}>Tenant</span> <strong>{user.tenantName ?? user.tenantGuid}</strong>
        </span>
      </div>
      <nav aria-label="Account" className={styles.account}>
        <a href="/swagger/">API explorer</a>
        {onChangePassword && (
          <button type="button" className={styles.link} onClick={onChangePassword}>
            Change password
          </button>
        )}
        <Link to="/Account/Logout">Log out</Link>
      </nav>
    </header>
  );
}

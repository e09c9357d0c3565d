import { useOutletContext } from 'react-router';
import type { Session } from '../../api/queries';
import { usePageTitle } from '../../components/page-title';
import { formatDateTime } from '../../components/time';
import styles from './home.module.css';

/** The console home: who is signed in, and the session's limits. */
export function HomePage() {
  const session = useOutletContext<Session>();
  usePageTitle('Home');
  return (
    <>
      <h1>Operations console</h1>
      <p className={styles.lead}>
        Signed in as <strong>{session.userName}</strong> in tenant{' '}
        <strong>{session.tenantName ?? session.tenantGuid}</strong>
        {session.landlord ? ' (the landlord tenant)' : ''}.
      </p>
      <div className={styles.cards}>
        <section className={styles.card} aria-labelledby="session-title">
          <h2 id="session-title">Your session</h2>
          <dl className={styles.facts}>
            <dt>Started</dt>
            <dd>{session.sessionStartedAt ? formatDateTime(Date.parse(session.sessionStartedAt)) : '—'}</dd>
            <dt>Ends at the latest</dt>
            <dd>{session.absoluteExpiresAt ? formatDateTime(session.absoluteExpiresAt) : '—'}</dd>
          </dl>
          <p>
            Every action keeps the session alive for another 15 minutes; after 15 idle minutes, or at the
            latest time above, you sign in again.
          </p>
        </section>
        <section className={styles.card} aria-labelledby="api-title">
          <h2 id="api-title">The API</h2>
          <p>
            Every screen of this console is built on the service&apos;s HTTP API. The API explorer documents
            it and lets you try it with your session.
          </p>
          <p>
            <a href="/swagger/">Open the API explorer</a>
          </p>
        </section>
      </div>
    </>
  );
}

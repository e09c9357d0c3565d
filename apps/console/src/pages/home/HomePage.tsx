import { useOutletContext } from 'react-router';
import type { Session } from '../../api/queries';
import formStyles from '../../components/forms.module.css';
import { usePageTitle } from '../../components/page-title';
import { allows, PERMISSION } from '../../components/permissions';
import { formatDateTime, formatInstant } from '../../components/time';
import { SignInHealth, TelemetryHealth } from './Health';
import { DatabaseHealth, RuntimeHealth } from './Runtime';
import { useHealthWindow } from './health';
import styles from './home.module.css';

/**
 * The console home: how the service is doing in the last hour, as far as the signed-in user may see (the
 * landlord: capture queues, warnings, throughput; anyone with Read Security Audit: failed sign-ins, their
 * tenant's for a tenant administrator), each figure a link into its grid with the same hour; then the
 * session's limits. No figure is asked for that the service would refuse.
 */
export function HomePage() {
  const session = useOutletContext<Session>();
  usePageTitle('Home');
  const hour = useHealthWindow();
  const audit = allows(session, { permission: PERMISSION.ReadSecurityAudit });
  return (
    <>
      <h1>Operations console</h1>
      <p className={styles.lead}>
        Signed in as <strong>{session.userName}</strong> in tenant{' '}
        <strong>{session.tenantName ?? session.tenantGuid}</strong>
        {session.landlord ? ' (the landlord tenant)' : ''}.
      </p>
      {(session.landlord || audit) && (
        <div className={styles.windowLine}>
          <p>
            The last hour, to {formatInstant(Date.parse(hour.to))}. Each figure opens its grid for that hour.
          </p>
          <button type="button" className={formStyles.secondary} onClick={hour.refresh}>
            Refresh
          </button>
        </div>
      )}
      {session.landlord && <TelemetryHealth hour={hour} />}
      <div className={styles.cards}>
        {session.landlord && <RuntimeHealth />}
        {session.landlord && <DatabaseHealth />}
        {audit && <SignInHealth hour={hour} />}
        <SessionCard session={session} />
      </div>
    </>
  );
}

function SessionCard({ session }: { session: Session }) {
  return (
    <section className={styles.card} aria-labelledby="session-title">
      <h2 id="session-title">Your session</h2>
      <dl className={styles.facts}>
        <dt>Started</dt>
        <dd>{session.sessionStartedAt ? formatDateTime(Date.parse(session.sessionStartedAt)) : '—'}</dd>
        <dt>Ends at the latest</dt>
        <dd>{session.absoluteExpiresAt ? formatDateTime(session.absoluteExpiresAt) : '—'}</dd>
      </dl>
      <p>
        Every action keeps the session alive for another 15 minutes; after 15 idle minutes, or at the latest
        time above, you sign in again. The <a href="/swagger/">API explorer</a> documents every call this
        console makes.
      </p>
    </section>
  );
}

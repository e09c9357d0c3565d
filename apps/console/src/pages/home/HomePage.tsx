import { useOutletContext } from 'react-router';
import type { Session } from '../../api/queries';
import formStyles from '../../components/forms.module.css';
import { usePageTitle } from '../../components/page-title';
import { allows, PERMISSION } from '../../components/permissions';
import { formatDateTime, formatInstant } from '../../components/time';
import { SignInHealth, TelemetryHealth } from './Health';
import { DatabaseHealth, RuntimeHealth } from './Runtime';
import { RANGES } from '../grids/toolbar-state';
import { useHealthWindow, type HomeRange } from './health';
import styles from './home.module.css';

/**
 * The console home: how the service is doing over the chosen window (the grids' presets, `range` in the URL),
 * as far as the signed-in user may see (the landlord: capture queues against their capacity, warnings,
 * throughput; Read Security Audit: failed sign-ins, their tenant's for a tenant administrator; user
 * administrators: active sessions), each figure with its trend and a link into its grid for the same window;
 * then the session's limits. No figure is asked for that the service would refuse.
 */
export function HomePage() {
  const session = useOutletContext<Session>();
  usePageTitle('Home');
  const hour = useHealthWindow();
  const audit = allows(session, { permission: PERMISSION.ReadSecurityAudit });
  const users = allows(session, { permission: PERMISSION.ReadWriteSecurityUser });
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
          <div className={styles.windowChoice}>
            <label htmlFor="home-window">Window</label>
            <select
              id="home-window"
              value={hour.range}
              onChange={(e) => hour.choose(e.target.value as HomeRange)}
            >
              {RANGES.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
          </div>
          <p id="home-window-span">
            From {formatInstant(Date.parse(hour.from))} to {formatInstant(Date.parse(hour.to))}. Each figure
            opens its grid for that window.
          </p>
          <button type="button" className={formStyles.secondary} onClick={hour.refresh}>
            Refresh
          </button>
        </div>
      )}
      <div className={styles.board}>
        {session.landlord && <TelemetryHealth hour={hour} />}
        <div className={styles.cards}>
          {(audit || users) && <SignInHealth hour={hour} audit={audit} users={users} />}
          {session.landlord && <RuntimeHealth />}
          {session.landlord && <DatabaseHealth />}
          <SessionCard session={session} />
        </div>
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

import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { sessionQuery, type Session } from '../../api/queries';
import { Alert } from '../Alert';
import formStyles from '../forms.module.css';
import { here, loginUrl } from '../return-url';
import { formatTime } from '../time';
import { expiryNotice, readExpiryCookie, roughly } from './session-expiry';
import styles from './shell.module.css';

function useNow(intervalMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

/**
 * Warns before the session ends: after idle time (the token's 15 minutes, read from the
 * authentication-expiry cookie) with a "Stay signed in" that slides it, and before the absolute lifetime
 * ends, which nothing extends. When it has ended, the Login page (coming back here).
 */
export function SessionExpiry({ session }: { session: Session }) {
  const queryClient = useQueryClient();
  const [sliding, setSliding] = useState(false);
  const now = useNow(1000) + session.clockOffset;
  const notice = expiryNotice(now, readExpiryCookie(document.cookie), session.absoluteExpiresAt);

  useEffect(() => {
    if (notice.kind === 'ended') window.location.assign(loginUrl(here(), true));
  }, [notice.kind]);

  async function staySignedIn() {
    setSliding(true);
    try {
      // Any request through the cookie slides the session; this one also refreshes what the page knows.
      await queryClient.fetchQuery({ ...sessionQuery, staleTime: 0 });
    } finally {
      setSliding(false);
    }
  }

  if (notice.kind === 'idle')
    return (
      <div className={styles.notice}>
        <Alert tone="warning">
          <span>
            You will be signed out at {formatTime(notice.endsAt - session.clockOffset)} (in{' '}
            {roughly(notice.endsAt - now)}) because nothing happened for a while.
          </span>{' '}
          <button
            type="button"
            className={formStyles.primary}
            onClick={() => void staySignedIn()}
            disabled={sliding}
          >
            Stay signed in
          </button>
        </Alert>
      </div>
    );
  if (notice.kind === 'absolute')
    return (
      <div className={styles.notice}>
        <Alert tone="info">
          Your session reaches its maximum length at {formatTime(notice.endsAt - session.clockOffset)} (in{' '}
          {roughly(notice.endsAt - now)}) and cannot be extended. Save your work; you will then sign in again.
        </Alert>
      </div>
    );
  return null;
}

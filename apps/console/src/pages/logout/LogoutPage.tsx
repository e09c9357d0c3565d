import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { Alert } from '../../components/Alert';
import formStyles from '../../components/forms.module.css';
import { PageCard } from '../../components/PageCard';
import { usePageTitle } from '../../components/page-title';
import { LOGIN_PATH } from '../../components/return-url';

/** The answer header of a logout whose revocation could not be written (docs/sessions.md). */
const LOGOUT_WARNING = 'X-Service-Logout-Warning';

type State = 'confirm' | 'busy' | 'done' | 'unreachable';

/**
 * spec: GET /Account/Logout — a confirmation button calling POST /api/Authentication/Logout, then a
 * logged-out message. Opening the page never logs anyone out.
 */
export function LogoutPage() {
  const queryClient = useQueryClient();
  const [state, setState] = useState<State>('confirm');
  const [warning, setWarning] = useState(false);
  usePageTitle(state === 'done' ? 'Logged out' : 'Log out');

  async function logout() {
    setState('busy');
    try {
      // Always 200: the cookies are deleted whatever the session's state (spec: Logout behaviour 1).
      const { response } = await api.POST('/api/Authentication/Logout');
      if (response.status !== 200) throw new Error(`status ${response.status}`);
      setWarning(response.headers.get(LOGOUT_WARNING) === 'revocation-failed');
      queryClient.clear();
      setState('done');
    } catch {
      setState('unreachable');
    }
  }

  if (state === 'done')
    return (
      <PageCard title="Logged out">
        <Alert tone="success">
          You are logged out. Every session of your account has ended, on every device.
        </Alert>
        {warning && (
          <Alert tone="warning">
            Your browser is logged out, but the service could not confirm that your other sessions ended.
            Please tell an administrator.
          </Alert>
        )}
        <p>
          <a href={LOGIN_PATH}>Sign in again</a>
        </p>
      </PageCard>
    );

  return (
    <PageCard title="Log out">
      {state === 'unreachable' && (
        <Alert tone="error">The service could not be reached. Please try again.</Alert>
      )}
      <p>
        Logging out ends <strong>every session of your account, on every device</strong>, not only this
        browser.
      </p>
      <div className={formStyles.actions}>
        <Link className={formStyles.secondary} to="/">
          Back to the console
        </Link>
        <button
          type="button"
          className={formStyles.primary}
          onClick={() => void logout()}
          disabled={state === 'busy'}
        >
          {state === 'busy' ? 'Logging out…' : 'Log out'}
        </button>
      </div>
    </PageCard>
  );
}

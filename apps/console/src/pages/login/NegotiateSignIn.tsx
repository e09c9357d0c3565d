import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, describeError } from '../../api/problem';
import { Alert } from '../../components/Alert';
import formStyles from '../../components/forms.module.css';
import { PasscodeForm } from '../../components/PasscodeForm';
import { goTo, PASSCODE_FAILED, signInWithNegotiate } from './sign-in';

export const NEGOTIATE_REFUSED =
  'Your browser did not sign you in with your Windows or Kerberos account. This service signs people in only that way: sign in to your domain (or get a Kerberos ticket), make sure your browser may use integrated sign-in for this site (your administrator can tell you), then try again.';

type State =
  | { kind: 'working' }
  | { kind: 'refused'; message: string }
  | { kind: 'passcode'; passcodeToken: string; expiresAt: string };

/**
 * spec: Negotiate 1 — no form: the page calls GET /api/Authentication/ByNegotiate in the background and the
 * browser answers the Negotiate challenge with its ticket. 200 signs in, 202 leaves the passcode field,
 * 401 says why nothing happened (there is no password form under Negotiate: docs/decisions.md).
 */
export function NegotiateSignIn({ returnUrl }: { returnUrl: string }) {
  const [state, setState] = useState<State>({ kind: 'working' });
  const started = useRef(false);

  const attempt = useCallback(async () => {
    setState({ kind: 'working' });
    // Chromium answers no Negotiate challenge before the first one it has seen since it started (it loads
    // its GSSAPI library then): one silent retry, so a freshly started browser signs in too. A refused
    // request without a ticket writes no UserLogin row, so the retry costs nothing.
    for (let tries = 1; ; tries++) {
      try {
        const outcome = await signInWithNegotiate();
        if (outcome.kind === 'passcode') setState(outcome);
        else goTo(returnUrl);
        return;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401 && tries < 2) continue;
        setState({
          kind: 'refused',
          message: err instanceof ApiError && err.status === 401 ? NEGOTIATE_REFUSED : describeError(err),
        });
        return;
      }
    }
  }, [returnUrl]);

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    void attempt();
  }, [attempt]);

  if (state.kind === 'passcode')
    return (
      <PasscodeForm
        passcodeToken={state.passcodeToken}
        expiresAt={state.expiresAt}
        failedMessage={PASSCODE_FAILED}
        onSignedIn={() => goTo(returnUrl)}
        onRestart={() => void attempt()}
      />
    );
  if (state.kind === 'refused')
    return (
      <>
        <Alert tone="error">{state.message}</Alert>
        <div className={formStyles.actions}>
          <button type="button" className={formStyles.primary} onClick={() => void attempt()}>
            Try again
          </button>
        </div>
      </>
    );
  return <p role="status">Signing you in with your Windows or Kerberos account…</p>;
}

import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, unwrap } from '../api/client';
import { ApiError, describeError } from '../api/problem';
import { Alert } from './Alert';
import { Field } from './Field';
import styles from './forms.module.css';
import { formatTime } from './time';

/**
 * The second step of a sign-in (spec: Second factor): only the passcode field. Completes through
 * POST /api/Authentication/Passcode with the passcode token of the 202 answer; a wrong passcode may be
 * retried with the same token until it expires.
 */
export function PasscodeForm({
  passcodeToken,
  expiresAt,
  onSignedIn,
  onRestart,
  failedMessage,
}: {
  passcodeToken: string;
  expiresAt: string;
  onSignedIn: () => void;
  onRestart: () => void;
  /** The one message for a refused passcode (no detail about why). */
  failedMessage: string;
}) {
  const [passcode, setPasscode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!passcode.trim()) {
      setError('Enter the passcode.');
      input.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await unwrap(
        api.POST('/api/Authentication/Passcode', { body: { passcodeToken, passcode: passcode.trim() } }),
      );
      onSignedIn();
    } catch (err) {
      setBusy(false);
      setPasscode('');
      setError(err instanceof ApiError && err.status === 401 ? failedMessage : describeError(err));
      input.current?.focus();
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-busy={busy}>
      <Alert tone="info">
        Enter the one-time passcode of your second factor. It must be entered before{' '}
        {formatTime(Date.parse(expiresAt))}.
      </Alert>
      {error && <Alert tone="error">{error}</Alert>}
      <Field
        id="passcode"
        label="Passcode"
        value={passcode}
        onChange={setPasscode}
        inputRef={input}
        autoComplete="one-time-code"
        inputMode="numeric"
        spellCheck={false}
        invalid={error !== null}
      />
      <div className={styles.actions}>
        <button type="button" className={styles.secondary} onClick={onRestart}>
          Start again
        </button>
        <button type="submit" className={styles.primary} disabled={busy}>
          {busy ? 'Checking…' : 'Continue'}
        </button>
      </div>
    </form>
  );
}

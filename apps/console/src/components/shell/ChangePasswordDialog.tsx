import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { onTheWire, passwordTransport, EncryptionUnavailable } from '../../api/password-transport';
import { ApiError, describeError } from '../../api/problem';
import { sessionQuery, type Session, type SignInOptions } from '../../api/queries';
import { Alert } from '../Alert';
import { Field } from '../Field';
import formStyles from '../forms.module.css';
import { PasscodeForm } from '../PasscodeForm';
import { checkNewPassword, lengthRule } from '../password-rules';
import styles from './shell.module.css';

type Step =
  { kind: 'form' } | { kind: 'passcode'; passcodeToken: string; expiresAt: string } | { kind: 'done' };

/**
 * Change password (POST /api/Authentication/ChangePassword): the current password and the new one twice,
 * hashed and/or encrypted exactly as at sign-in. Every other session of the user ends; this browser gets a
 * new one. With the second factor, a passcode completes it.
 */
export function ChangePasswordDialog({
  open,
  onClose,
  session,
  options,
}: {
  open: boolean;
  onClose: () => void;
  session: Session;
  options: SignInOptions;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'form' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      setCurrent('');
      setNext('');
      setRepeat('');
      setError(null);
      setStep({ kind: 'form' });
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [open]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!current) return setError('Enter your current password.');
    const broken = checkNewPassword(options, current, next, repeat);
    if (broken) return setError(broken.message);
    setBusy(true);
    try {
      const transport = await passwordTransport(options, session.userName);
      const body = {
        password: await onTheWire(transport, current),
        newPassword: await onTheWire(transport, next),
        repeatNewPassword: await onTheWire(transport, repeat),
      };
      const { data, response } = await unwrap(api.POST('/api/Authentication/ChangePassword', { body }));
      if (response.status === 202 && 'passcodeToken' in data)
        setStep({ kind: 'passcode', passcodeToken: data.passcodeToken, expiresAt: data.expiresAt });
      else finished();
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'The current password is not right.'
          : err instanceof EncryptionUnavailable
            ? err.message
            : describeError(err),
      );
    } finally {
      setBusy(false);
    }
  }

  function finished() {
    setStep({ kind: 'done' });
    void queryClient.invalidateQueries({ queryKey: sessionQuery.queryKey });
  }

  return (
    <dialog ref={dialog} className={styles.dialog} aria-labelledby="change-password-title" onClose={onClose}>
      <h2 id="change-password-title">Change password</h2>
      {step.kind === 'done' && (
        <>
          <Alert tone="success">Your password has been changed. Your other sessions have ended.</Alert>
          <div className={formStyles.actions}>
            <button type="button" className={formStyles.primary} onClick={onClose} autoFocus>
              Close
            </button>
          </div>
        </>
      )}
      {step.kind === 'passcode' && (
        <PasscodeForm
          passcodeToken={step.passcodeToken}
          expiresAt={step.expiresAt}
          failedMessage="The passcode was not accepted. Try again, or start again."
          onSignedIn={finished}
          onRestart={() => setStep({ kind: 'form' })}
        />
      )}
      {step.kind === 'form' && (
        <form onSubmit={(e) => void submit(e)} noValidate aria-busy={busy}>
          <p>After the change, every other session of your account ends, on every device.</p>
          {error && <Alert tone="error">{error}</Alert>}
          <Field
            id="currentPassword"
            label="Current password"
            type="password"
            value={current}
            onChange={setCurrent}
            autoComplete="current-password"
            autoFocus
          />
          <Field
            id="changedPassword"
            label="New password"
            type="password"
            value={next}
            onChange={setNext}
            autoComplete="new-password"
            hint={lengthRule(options)}
          />
          <Field
            id="changedPasswordRepeat"
            label="Repeat the new password"
            type="password"
            value={repeat}
            onChange={setRepeat}
            autoComplete="new-password"
          />
          <div className={formStyles.actions}>
            <button type="button" className={formStyles.secondary} onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className={formStyles.primary} disabled={busy}>
              {busy ? 'Changing…' : 'Change password'}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}

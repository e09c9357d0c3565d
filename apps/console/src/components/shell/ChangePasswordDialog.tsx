import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type RefObject } from 'react';
import { api, unwrap } from '../../api/client';
import { onTheWire, passwordTransport, EncryptionUnavailable } from '../../api/password-transport';
import { ApiError, describeError } from '../../api/problem';
import { sessionQuery, type Session, type SignInOptions } from '../../api/queries';
import { Alert } from '../Alert';
import { Field } from '../Field';
import formStyles from '../forms.module.css';
import { NewPasswordFields } from '../NewPasswordFields';
import { PasscodeForm } from '../PasscodeForm';
import { checkNewPassword } from '../password-rules';
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
  const change = useChangePassword(dialog, open, session, options);
  const { step } = change;

  return (
    <dialog ref={dialog} className={styles.dialog} aria-labelledby="change-password-title" onClose={onClose}>
      <h2 id="change-password-title">Change password</h2>
      {step.kind === 'done' && <PasswordChanged onClose={onClose} />}
      {step.kind === 'passcode' && (
        <PasscodeForm
          passcodeToken={step.passcodeToken}
          expiresAt={step.expiresAt}
          failedMessage="The passcode was not accepted. Try again, or start again."
          onSignedIn={change.finished}
          onRestart={() => change.setStep({ kind: 'form' })}
        />
      )}
      {step.kind === 'form' && <ChangePasswordForm change={change} options={options} onClose={onClose} />}
    </dialog>
  );
}

type ChangePassword = ReturnType<typeof useChangePassword>;

/** The dialog's state: emptied each time it opens; the submit checks the rules, then sends the three fields. */
function useChangePassword(
  dialogRef: RefObject<HTMLDialogElement | null>,
  open: boolean,
  session: Session,
  options: SignInOptions,
) {
  const queryClient = useQueryClient();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const [step, setStep] = useState<Step>({ kind: 'form' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const d = dialogRef.current;
    if (!d) return;
    if (open && !d.open) {
      setCurrent('');
      setNext('');
      setRepeat('');
      setError(null);
      setStep({ kind: 'form' });
      d.showModal();
    } else if (!open && d.open) d.close();
  }, [dialogRef, open]);

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

  return {
    current,
    setCurrent,
    next,
    setNext,
    repeat,
    setRepeat,
    step,
    setStep,
    busy,
    error,
    submit,
    finished,
  };
}

/** The current password and the new one twice, Cancel and Change password. */
function ChangePasswordForm({
  change,
  options,
  onClose,
}: {
  change: ChangePassword;
  options: SignInOptions;
  onClose: () => void;
}) {
  const { busy, error } = change;
  return (
    <form onSubmit={(e) => void change.submit(e)} noValidate aria-busy={busy}>
      <p>After the change, every other session of your account ends, on every device.</p>
      {error && <Alert tone="error">{error}</Alert>}
      <Field
        id="currentPassword"
        label="Current password"
        type="password"
        value={change.current}
        onChange={change.setCurrent}
        autoComplete="current-password"
        autoFocus
      />
      <NewPasswordFields
        ids={{ next: 'changedPassword', repeat: 'changedPasswordRepeat' }}
        options={options}
        next={change.next}
        onNext={change.setNext}
        repeat={change.repeat}
        onRepeat={change.setRepeat}
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
  );
}

/** The change is made: the message and Close. */
function PasswordChanged({ onClose }: { onClose: () => void }) {
  return (
    <>
      <Alert tone="success">Your password has been changed. Your other sessions have ended.</Alert>
      <div className={formStyles.actions}>
        <button type="button" className={formStyles.primary} onClick={onClose} autoFocus>
          Close
        </button>
      </div>
    </>
  );
}

import { useRef, useState, type FormEvent } from 'react';
import { ApiError, describeError, PROBLEM_TYPE } from '../../api/problem';
import { canEncrypt, ENCRYPTION_NEEDS_HTTPS, EncryptionUnavailable } from '../../api/password-transport';
import type { SignInOptions } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { PasscodeForm } from '../../components/PasscodeForm';
import { checkNewPassword, lengthRule } from '../../components/password-rules';
import { goTo, PASSCODE_FAILED, SIGN_IN_FAILED, signInWithPassword } from './sign-in';

type FieldName = 'userName' | 'password' | 'newPassword' | 'repeatNewPassword';

/**
 * The user name and password form. An expired password reveals New password and Repeat, and the three go
 * in one request; a 202 leaves only the passcode field.
 */
export function PasswordSignIn({ options, returnUrl }: { options: SignInOptions; returnUrl: string }) {
  const [userName, setUserName] = useState('');
  const [password, setPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [expired, setExpired] = useState(false);
  const [pending, setPending] = useState<{ passcodeToken: string; expiresAt: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: FieldName } | null>(null);
  const userNameInput = useRef<HTMLInputElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  const newPasswordInput = useRef<HTMLInputElement>(null);
  const repeatInput = useRef<HTMLInputElement>(null);

  /** Focus after the render that shows the message or the new fields. */
  function focusLater(field: FieldName) {
    const input = {
      userName: userNameInput,
      password: passwordInput,
      newPassword: newPasswordInput,
      repeatNewPassword: repeatInput,
    }[field];
    setTimeout(() => input.current?.focus(), 0);
  }
  // RSA transport without WebCrypto (a plain-HTTP host): refuse to send, never fall back to plaintext.
  const cannotEncrypt = options.passwordEncryption && !canEncrypt();

  function fail(message: string, field?: FieldName) {
    setError({ message, field });
    setBusy(false);
    focusLater(field ?? 'password');
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (!userName.trim()) return fail('Enter your user name.', 'userName');
    if (!password) return fail(expired ? 'Enter your current password.' : 'Enter your password.', 'password');
    if (expired) {
      const broken = checkNewPassword(options, password, newPassword, repeat);
      if (broken) return fail(broken.message, broken.field);
    }
    setBusy(true);
    try {
      const outcome = await signInWithPassword(options, {
        userName,
        password,
        ...(expired ? { newPassword, repeatNewPassword: repeat } : {}),
      });
      if (outcome.kind === 'passcode') {
        setBusy(false);
        setPending(outcome);
      } else goTo(returnUrl);
    } catch (err) {
      if (err instanceof ApiError && err.is(PROBLEM_TYPE.passwordExpired)) {
        setExpired(true);
        setBusy(false);
        focusLater('newPassword');
      } else if (err instanceof ApiError && err.status === 401) {
        setPassword('');
        fail(SIGN_IN_FAILED);
      } else if (err instanceof ApiError && err.status === 400) {
        const field = err.problem?.errors?.[0]?.field;
        fail(
          describeError(err),
          field === 'repeatNewPassword' ? 'repeatNewPassword' : expired ? 'newPassword' : 'password',
        );
      } else if (err instanceof EncryptionUnavailable) {
        fail(err.message, expired ? 'newPassword' : 'password');
      } else {
        fail(describeError(err));
      }
    }
  }

  if (pending)
    return (
      <PasscodeForm
        {...pending}
        failedMessage={PASSCODE_FAILED}
        onSignedIn={() => goTo(returnUrl)}
        onRestart={() => {
          setPending(null);
          setPassword('');
          setNewPassword('');
          setRepeat('');
          setExpired(false);
        }}
      />
    );

  return (
    <form onSubmit={(e) => void submit(e)} noValidate aria-busy={busy}>
      {cannotEncrypt && <Alert tone="error">{ENCRYPTION_NEEDS_HTTPS}</Alert>}
      {expired && (
        <Alert tone="warning">
          Your password has expired. Choose a new one: you will be signed in with it at once.
        </Alert>
      )}
      {error && <Alert tone="error">{error.message}</Alert>}
      <Field
        id="userName"
        label="User name"
        value={userName}
        onChange={setUserName}
        inputRef={userNameInput}
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        invalid={error?.field === 'userName'}
        autoFocus
      />
      <Field
        id="password"
        label={expired ? 'Current password' : 'Password'}
        type="password"
        value={password}
        onChange={setPassword}
        inputRef={passwordInput}
        autoComplete="current-password"
        invalid={error?.field === 'password'}
      />
      {expired && (
        <>
          <Field
            id="newPassword"
            label="New password"
            type="password"
            value={newPassword}
            onChange={setNewPassword}
            inputRef={newPasswordInput}
            autoComplete="new-password"
            hint={lengthRule(options)}
            invalid={error?.field === 'newPassword'}
          />
          <Field
            id="repeatNewPassword"
            label="Repeat the new password"
            type="password"
            value={repeat}
            onChange={setRepeat}
            inputRef={repeatInput}
            autoComplete="new-password"
            invalid={error?.field === 'repeatNewPassword'}
          />
        </>
      )}
      <div className={formStyles.actions}>
        <button
          type="submit"
          className={`${formStyles.primary} ${formStyles.wide}`}
          disabled={busy || cannotEncrypt}
        >
          {busy ? 'Signing in…' : expired ? 'Change password and sign in' : 'Sign in'}
        </button>
      </div>
    </form>
  );
}

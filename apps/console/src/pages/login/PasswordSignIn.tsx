import { useRef, useState, type FormEvent, type RefObject } from 'react';
import { ApiError, describeError, PROBLEM_TYPE } from '../../api/problem';
import { canEncrypt, ENCRYPTION_NEEDS_HTTPS, EncryptionUnavailable } from '../../api/password-transport';
import type { SignInOptions } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { NewPasswordFields } from '../../components/NewPasswordFields';
import { PasscodeForm } from '../../components/PasscodeForm';
import { checkNewPassword } from '../../components/password-rules';
import { goTo, PASSCODE_FAILED, SIGN_IN_FAILED, signInWithPassword } from './sign-in';

type FieldName = 'userName' | 'password' | 'newPassword' | 'repeatNewPassword';
type InputRefs = Record<FieldName, RefObject<HTMLInputElement | null>>;

/**
 * The user name and password form. An expired password reveals New password and Repeat, and the three go
 * in one request; a 202 leaves only the passcode field.
 */
export function PasswordSignIn({ options, returnUrl }: { options: SignInOptions; returnUrl: string }) {
  const userNameInput = useRef<HTMLInputElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  const newPasswordInput = useRef<HTMLInputElement>(null);
  const repeatInput = useRef<HTMLInputElement>(null);
  const inputRefs: InputRefs = {
    userName: userNameInput,
    password: passwordInput,
    newPassword: newPasswordInput,
    repeatNewPassword: repeatInput,
  };
  const signIn = usePasswordSignIn(options, returnUrl, inputRefs);

  if (signIn.pending)
    return (
      <PasscodeForm
        {...signIn.pending}
        failedMessage={PASSCODE_FAILED}
        onSignedIn={() => goTo(returnUrl)}
        onRestart={signIn.restart}
      />
    );

  return <PasswordForm signIn={signIn} options={options} inputRefs={inputRefs} />;
}

/** What the form holds as typed, and whether the password turned out expired. */
function useSignInFields() {
  const [userName, setUserName] = useState('');
  const [password, setPassword] = useState('');
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [expired, setExpired] = useState(false);
  return {
    userName,
    setUserName,
    password,
    setPassword,
    newPassword,
    setNewPassword,
    repeat,
    setRepeat,
    expired,
    setExpired,
  };
}

type PasswordSignInState = ReturnType<typeof usePasswordSignIn>;

/** The submit: the page's own checks, the request, and what each refusal shows and focuses. */
function usePasswordSignIn(options: SignInOptions, returnUrl: string, inputRefs: InputRefs) {
  const fields = useSignInFields();
  const { userName, password, newPassword, repeat, expired, setPassword, setExpired } = fields;
  const [pending, setPending] = useState<{ passcodeToken: string; expiresAt: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: FieldName } | null>(null);

  /** Focus after the render that shows the message or the new fields. */
  function focusLater(field: FieldName) {
    const input = inputRefs[field];
    setTimeout(() => input.current?.focus(), 0);
  }

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

  function restart() {
    setPending(null);
    setPassword('');
    fields.setNewPassword('');
    fields.setRepeat('');
    setExpired(false);
  }

  return { fields, pending, busy, error, submit, restart };
}

/** The fields, the messages above them, and Sign in. */
function PasswordForm({
  signIn,
  options,
  inputRefs,
}: {
  signIn: PasswordSignInState;
  options: SignInOptions;
  inputRefs: InputRefs;
}) {
  const { fields, busy, error } = signIn;
  const { expired } = fields;
  // RSA transport without WebCrypto (a plain-HTTP host): refuse to send, never fall back to plaintext.
  const cannotEncrypt = options.passwordEncryption && !canEncrypt();

  return (
    <form onSubmit={(e) => void signIn.submit(e)} noValidate aria-busy={busy}>
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
        value={fields.userName}
        onChange={fields.setUserName}
        inputRef={inputRefs.userName}
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
        value={fields.password}
        onChange={fields.setPassword}
        inputRef={inputRefs.password}
        autoComplete="current-password"
        invalid={error?.field === 'password'}
      />
      {expired && (
        <NewPasswordFields
          ids={{ next: 'newPassword', repeat: 'repeatNewPassword' }}
          options={options}
          next={fields.newPassword}
          onNext={fields.setNewPassword}
          repeat={fields.repeat}
          onRepeat={fields.setRepeat}
          refs={{ next: inputRefs.newPassword, repeat: inputRefs.repeatNewPassword }}
          invalid={{ next: error?.field === 'newPassword', repeat: error?.field === 'repeatNewPassword' }}
        />
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

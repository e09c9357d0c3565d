import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, ifMatch, unwrap } from '../../api/client';
import { signInOptionsQuery, type Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { lengthRule } from '../../components/password-rules';
import { Check, RoleSelect, securityError, useNames } from './controls';
import { administeredPassword } from './passwords';
import type { User } from './queries';
import styles from './security.module.css';

/** Edit: the e-mail address and the role, by name, among the roles of the user's own tenant (a user stays in it). */
export function EditUser({
  user,
  session,
  onSaved,
}: {
  user: User;
  session: Session;
  onSaved: (user: User) => void;
}) {
  const { choices } = useNames(session);
  const [email, setEmail] = useState(user.email ?? '');
  const [roleGuid, setRoleGuid] = useState(user.roleGuid);
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: async () =>
      (
        await unwrap(
          api.PUT('/api/UserRegistry/{guid}', {
            params: { path: { guid: user.guid }, header: ifMatch(user) },
            body: { email: email.trim() || null, roleGuid },
          }),
        )
      ).data,
    onSuccess: onSaved,
    onError: (err) => setError(securityError(err)),
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    save.mutate();
  }
  return (
    <form onSubmit={submit} noValidate aria-labelledby="edit-user-title">
      <h3 id="edit-user-title">Edit</h3>
      {error && <Alert tone="error">{error}</Alert>}
      <Field id="edit-user-email" label="E-mail" type="email" value={email} onChange={setEmail} />
      <RoleSelect
        id="edit-user-role"
        choices={choices?.filter(
          (r) =>
            r.tenantGuid === user.tenantGuid &&
            // nobody changes their own role (the service's 403): one's own page offers only the role held
            (user.guid !== session.userGuid || r.guid === user.roleGuid),
        )}
        value={roleGuid}
        onChange={setRoleGuid}
      />
      <div className={formStyles.actions}>
        <button type="submit" className={formStyles.primary} disabled={save.isPending}>
          Save changes
        </button>
      </div>
    </form>
  );
}

type ResetBody = { password: string; passwordExpired: boolean; wirePasswordHash: boolean };

/**
 * POST …/ResetPassword once the page's own checks pass and the administrator confirmed (`asking`: the checked
 * request waiting for it, since a reset cannot be undone); with the flag, only the hash travels.
 */
function useResetPassword(user: User, onReset: (user: User) => void, onError: (text: string) => void) {
  const options = useQuery(signInOptionsQuery);
  const [asking, setAsking] = useState<ResetBody | null>(null);
  const reset = useMutation({
    mutationFn: async (body: ResetBody) =>
      (
        await unwrap(
          api.POST('/api/UserRegistry/{guid}/ResetPassword', { params: { path: { guid: user.guid } }, body }),
        )
      ).data,
    onSuccess: (next) => {
      setAsking(null);
      onReset(next);
    },
    onError: (err) => {
      setAsking(null);
      onError(securityError(err));
    },
  });
  /** The request's body once the page's own checks pass (else null, the reason given to onError). */
  function check(password: string, repeat: string, expired: boolean, wire: boolean): ResetBody | null {
    if (!options.data) {
      onError('The password rules are still loading; try again.');
      return null;
    }
    const checked = administeredPassword(options.data, user.name, password, repeat, wire);
    if ('error' in checked) {
      onError(checked.error);
      return null;
    }
    return { password: checked.value, passwordExpired: expired, wirePasswordHash: wire };
  }
  return {
    ask: (password: string, repeat: string, expired: boolean, wire: boolean) =>
      setAsking(check(password, repeat, expired, wire)),
    asking,
    confirm: () => asking && reset.mutate(asking),
    cancel: () => setAsking(null),
    busy: reset.isPending,
    rule: options.data ? lengthRule(options.data) : undefined,
  };
}

/** The question before a reset, which cannot be undone: what happens to the user's sessions and next sign-in. */
function ConfirmReset({
  user,
  asking,
  busy,
  onConfirm,
  onCancel,
}: {
  user: User;
  asking: ResetBody | null;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      open={asking !== null}
      title={`Reset the password of ${user.name}?`}
      confirm="Reset password"
      busy={busy}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        The password is replaced at once and every session of {user.name} ends.
        {asking?.passwordExpired
          ? ' They sign in with the new password and must change it at the next sign-in.'
          : ' They sign in with the new password.'}
      </p>
    </ConfirmDialog>
  );
}

/**
 * Reset password: the WirePasswordHash choice is made here, with the password (the flag never changes
 * without one). With the flag the browser checks the rules and sends only the hash.
 */
export function ResetPassword({ user, onReset }: { user: User; onReset: (user: User) => void }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [expired, setExpired] = useState(true);
  const [wire, setWire] = useState(user.wirePasswordHash);
  const [error, setError] = useState<string | null>(null);
  const reset = useResetPassword(
    user,
    (next) => {
      setPassword('');
      setRepeat('');
      onReset(next);
    },
    setError,
  );
  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    reset.ask(password, repeat, expired, wire);
  }
  return (
    <section className={styles.card} aria-labelledby="reset-title">
      <h2 id="reset-title">Reset password</h2>
      <form onSubmit={submit} noValidate aria-busy={reset.busy}>
        {error && <Alert tone="error">{error}</Alert>}
        <div className={styles.columns}>
          <div>
            <Field
              id="reset-password"
              label="New password"
              type="password"
              value={password}
              onChange={setPassword}
              autoComplete="new-password"
              hint={reset.rule}
            />
            <Field
              id="reset-repeat"
              label="Repeat the new password"
              type="password"
              value={repeat}
              onChange={setRepeat}
              autoComplete="new-password"
            />
          </div>
          <div>
            <Check
              id="reset-expired"
              label="Must change it at the next sign-in"
              checked={expired}
              onChange={setExpired}
            />
            <Check
              id="reset-wire"
              label="WirePasswordHash"
              checked={wire}
              onChange={setWire}
              hint="The browser sends SHA-256 of the password and the user name instead of the password, at sign-in and here. The flag changes only with a new password; the rules above are then checked only in the browser."
            />
          </div>
        </div>
        <div className={formStyles.actions}>
          <button type="submit" className={formStyles.primary} disabled={reset.busy}>
            Reset password
          </button>
        </div>
      </form>
      <ConfirmReset
        user={user}
        asking={reset.asking}
        busy={reset.busy}
        onConfirm={reset.confirm}
        onCancel={reset.cancel}
      />
    </section>
  );
}

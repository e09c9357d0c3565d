import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, unwrap, type Schemas } from '../../api/client';
import { signInOptionsQuery, type Session } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { Field } from '../../components/Field';
import formStyles from '../../components/forms.module.css';
import { lengthRule } from '../../components/password-rules';
import { Check, RoleSelect, securityError, useNames } from './controls';
import { administeredPassword } from './passwords';
import { USERS_KEY } from './queries';
import styles from './security.module.css';

interface NewUser {
  name: string;
  email: string;
  roleGuid: string;
  password: string;
  repeat: string;
  expired: boolean;
  wire: boolean;
}

/** POST /api/UserRegistry, after the page's own checks (the password rules, the repeat) pass; then the user's page. */
function useCreateUser(onError: (text: string) => void) {
  const options = useQuery(signInOptionsQuery);
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const create = useMutation({
    mutationFn: async (body: Schemas['CreateUserDto']) =>
      (await unwrap(api.POST('/api/UserRegistry', { body }))).data,
    onSuccess: (user) => {
      void queryClient.invalidateQueries({ queryKey: USERS_KEY });
      void navigate(`/Security/Users/${user.guid}`);
    },
    onError: (err) => onError(securityError(err)),
  });
  function submit(u: NewUser): void {
    if (!u.name.trim()) return onError('Enter the user name.');
    if (!u.roleGuid) return onError('Choose the role.');
    let sent: string | undefined;
    if (u.password || u.repeat) {
      if (!options.data) return onError('The password rules are still loading; try again.');
      const checked = administeredPassword(options.data, u.name, u.password, u.repeat, u.wire);
      if ('error' in checked) return onError(checked.error);
      sent = checked.value;
    }
    create.mutate({
      name: u.name.trim(),
      email: u.email.trim() || null,
      roleGuid: u.roleGuid,
      ...(sent !== undefined ? { password: sent, passwordExpired: u.expired, wirePasswordHash: u.wire } : {}),
    });
  }
  return { submit, busy: create.isPending, rule: options.data ? lengthRule(options.data) : '' };
}

/** New user: name, e-mail, role by name, an optional initial password twice, must change it, WirePasswordHash. */
export function CreateUser({ session, onDone }: { session: Session; onDone: () => void }) {
  const { choices } = useNames(session);
  const [u, setU] = useState<NewUser>({
    name: '',
    email: '',
    roleGuid: '',
    password: '',
    repeat: '',
    expired: true,
    wire: false,
  });
  const [error, setError] = useState<string | null>(null);
  const create = useCreateUser(setError);
  const set =
    <K extends keyof NewUser>(key: K) =>
    (value: NewUser[K]) =>
      setU((prev) => ({ ...prev, [key]: value }));
  function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    create.submit(u);
  }
  return (
    <section className={styles.card} aria-labelledby="new-user-title">
      <h2 id="new-user-title">New user</h2>
      <form onSubmit={submit} noValidate aria-busy={create.busy}>
        {error && <Alert tone="error">{error}</Alert>}
        <div className={styles.columns}>
          <div>
            <Field
              id="new-user-name"
              label="User name"
              value={u.name}
              onChange={set('name')}
              autoComplete="off"
            />
            <Field
              id="new-user-email"
              label="E-mail (optional)"
              type="email"
              value={u.email}
              onChange={set('email')}
              autoComplete="off"
            />
            <RoleSelect id="new-user-role" choices={choices} value={u.roleGuid} onChange={set('roleGuid')} />
          </div>
          <InitialPassword user={u} set={set} rule={create.rule} />
        </div>
        <div className={formStyles.actions}>
          <button type="button" className={formStyles.secondary} onClick={onDone}>
            Cancel
          </button>
          <button type="submit" className={formStyles.primary} disabled={create.busy}>
            Create user
          </button>
        </div>
      </form>
    </section>
  );
}

/** The optional initial password, twice, with its two choices. */
function InitialPassword({
  user: u,
  set,
  rule,
}: {
  user: NewUser;
  set: <K extends keyof NewUser>(key: K) => (value: NewUser[K]) => void;
  rule: string;
}) {
  return (
    <div>
      <Field
        id="new-user-password"
        label="Initial password (optional)"
        type="password"
        value={u.password}
        onChange={set('password')}
        autoComplete="new-password"
        hint={`${rule} Leave empty for a user who signs in through OpenID Connect or Negotiate.`}
      />
      <Field
        id="new-user-repeat"
        label="Repeat the password"
        type="password"
        value={u.repeat}
        onChange={set('repeat')}
        autoComplete="new-password"
      />
      <Check
        id="new-user-expired"
        label="Must change the password at first sign-in"
        checked={u.expired}
        onChange={set('expired')}
      />
      <Check
        id="new-user-wire"
        label="WirePasswordHash"
        checked={u.wire}
        onChange={set('wire')}
        hint="The browser sends a SHA-256 hash of the password instead of the password; its strength is then checked only in the browser."
      />
    </div>
  );
}

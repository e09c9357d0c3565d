import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api, done, unwrap } from '../../api/client';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import formStyles from '../../components/forms.module.css';
import { securityError } from './controls';
import { USERS_KEY, userQuery, type User } from './queries';
import styles from './security.module.css';
import type { Action, allowedActions } from './user-actions';

const CONFIRM: Record<
  Exclude<Action, 'activate' | 'unlock'>,
  { title: string; confirm: string; text: string }
> = {
  deactivate: {
    title: 'Deactivate this user?',
    confirm: 'Deactivate',
    text: 'The user can no longer sign in; their sessions and API keys stop working at once.',
  },
  revoke: {
    title: 'Revoke every session of this user?',
    confirm: 'Revoke Sessions',
    text: 'Every browser signed in as this user is signed out at its next request, and its open live views close. API keys are not affected.',
  },
  delete: {
    title: 'Delete this user?',
    confirm: 'Delete user',
    text: 'The user is deleted (kept in the records as deleted): they can no longer sign in and their API keys stop working.',
  },
};
const LABEL: Record<Action, string> = {
  deactivate: 'Deactivate',
  activate: 'Activate',
  unlock: 'Unlock',
  revoke: 'Revoke Sessions',
  delete: 'Delete user',
};

/** The one request of each action; the user's new state, or null when it answers none. */
async function perform(action: Action, guid: string): Promise<User | null> {
  const path = { params: { path: { guid } } };
  switch (action) {
    case 'deactivate':
      return (await unwrap(api.POST('/api/UserRegistry/{guid}/Deactivate', path))).data;
    case 'activate':
      return (await unwrap(api.PUT('/api/UserRegistry/{guid}', { ...path, body: { active: true } }))).data;
    case 'unlock':
      return (await unwrap(api.POST('/api/UserRegistry/{guid}/Unlock', path))).data;
    case 'revoke':
      await done(api.POST('/api/UserRegistry/RevokeTokens/{id}', { params: { path: { id: guid } } }));
      return null;
    case 'delete':
      await done(api.DELETE('/api/UserRegistry/{guid}', path));
      return null;
  }
}

const DONE: Record<Action, (name: string) => string> = {
  deactivate: (n) => `${n} is deactivated.`,
  activate: (n) => `${n} is active again.`,
  unlock: (n) => `${n} is unlocked.`,
  revoke: (n) => `Every session of ${n} has ended.`,
  delete: () => '',
};

/** The actions the service allows on this user (user-actions.ts); the irreversible ones ask first. */
export function UserActions({
  user,
  allowed,
  onMessage,
}: {
  user: User;
  allowed: ReturnType<typeof allowedActions>;
  onMessage: (m: { tone: 'success' | 'error'; text: string }) => void;
}) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [asking, setAsking] = useState<Action | null>(null);
  const { actions, notes } = allowed;
  const act = useMutation({
    mutationFn: (action: Action) => perform(action, user.guid),
    onSuccess: (next, action) => {
      setAsking(null);
      if (next) queryClient.setQueryData(userQuery(user.guid).queryKey, next);
      void queryClient.invalidateQueries({ queryKey: USERS_KEY });
      if (action === 'delete') void navigate('/Security/Users');
      else onMessage({ tone: 'success', text: DONE[action](user.name) });
    },
    onError: (err) => {
      setAsking(null);
      onMessage({ tone: 'error', text: securityError(err) });
    },
  });
  const confirm = asking && asking !== 'activate' && asking !== 'unlock' ? CONFIRM[asking] : null;
  return (
    <>
      <div className={styles.row}>
        {actions.map((a) => (
          <button
            key={a}
            type="button"
            className={`${formStyles.secondary} ${a === 'delete' ? styles.danger : ''}`}
            onClick={() => (a === 'activate' || a === 'unlock' ? act.mutate(a) : setAsking(a))}
          >
            {LABEL[a]}
          </button>
        ))}
      </div>
      {notes.map((note) => (
        <p key={note} className={styles.muted} data-action-note>
          {note}
        </p>
      ))}
      <ConfirmDialog
        open={confirm !== null}
        title={confirm?.title ?? ''}
        confirm={confirm?.confirm ?? ''}
        busy={act.isPending}
        onConfirm={() => asking && act.mutate(asking)}
        onCancel={() => setAsking(null)}
      >
        <p>{confirm?.text}</p>
      </ConfirmDialog>
    </>
  );
}

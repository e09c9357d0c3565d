import { useEffect } from 'react';
import type { SignInOptions } from '../../api/queries';
import { Alert } from '../../components/Alert';
import formStyles from '../../components/forms.module.css';

/**
 * spec: OAuth 2 — the Login page goes straight to the identity provider. The service already answers
 * /Account/Login with that redirect before any script runs; the page only arrives here after a failed
 * callback (`failed=1`, which must not loop back to the provider), or by a navigation inside the console.
 */
export function OAuthSignIn({
  options,
  returnUrl,
  failed,
}: {
  options: SignInOptions;
  returnUrl: string;
  failed: boolean;
}) {
  const start = `${options.oauthLoginPath ?? ''}${returnUrl === '/' ? '' : `?returnUrl=${encodeURIComponent(returnUrl)}`}`;
  useEffect(() => {
    if (!failed) window.location.replace(start);
  }, [failed, start]);

  if (!failed) return <p role="status">Taking you to your identity provider…</p>;
  return (
    <>
      <Alert tone="error">
        Sign-in did not complete: the identity provider refused it, or your account does not exist here or is
        not active. If this persists, please ask an administrator.
      </Alert>
      <div className={formStyles.actions}>
        <a className={formStyles.primary} href={start}>
          Try again
        </a>
      </div>
    </>
  );
}

import { useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { describeError } from '../../api/problem';
import { signInOptionsQuery } from '../../api/queries';
import { Alert } from '../../components/Alert';
import { PageCard } from '../../components/PageCard';
import { usePageTitle } from '../../components/page-title';
import { localReturnUrl } from '@app/declarations';
import formStyles from '../../components/forms.module.css';
import { NegotiateSignIn } from './NegotiateSignIn';
import { OAuthSignIn } from './OAuthSignIn';
import { PasswordSignIn } from './PasswordSignIn';

/**
 * spec: the Login page, in the one mode the service runs (GET /api/Authentication/Options): the password
 * form, OpenID Connect, or Negotiate. It comes back to `returnUrl` (a local path only) after sign-in.
 */
export function LoginPage() {
  const [params] = useSearchParams();
  const returnUrl = localReturnUrl(params.get('returnUrl'));
  const options = useQuery(signInOptionsQuery);
  usePageTitle('Sign in');

  let body;
  if (options.isPending) body = <p role="status">Loading…</p>;
  else if (options.isError)
    body = (
      <>
        <Alert tone="error">{describeError(options.error)}</Alert>
        <button type="button" className={formStyles.secondary} onClick={() => void options.refetch()}>
          Try again
        </button>
      </>
    );
  else if (options.data.mode === 'oauth')
    body = <OAuthSignIn options={options.data} returnUrl={returnUrl} failed={params.has('failed')} />;
  else if (options.data.mode === 'negotiate') body = <NegotiateSignIn returnUrl={returnUrl} />;
  else body = <PasswordSignIn options={options.data} returnUrl={returnUrl} />;

  return (
    <PageCard title="Sign in">
      {params.get('ended') === '1' && (
        <Alert tone="info">Your session has ended. Sign in again to continue.</Alert>
      )}
      {body}
    </PageCard>
  );
}

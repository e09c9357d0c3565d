import { api, unwrap, type Schemas } from '../../api/client';
import { onTheWire, passwordTransport } from '../../api/password-transport';
import type { SignInOptions } from '../../api/queries';

/** Signed in (the cookies are set), or the second factor's passcode is still needed (202). */
export type SignInOutcome =
  { kind: 'signed-in' } | { kind: 'passcode'; passcodeToken: string; expiresAt: string };

function outcome(
  response: Response,
  data: Schemas['SignedInDto'] | Schemas['SecondFactorRequiredDto'],
): SignInOutcome {
  return response.status === 202 && 'passcodeToken' in data
    ? { kind: 'passcode', passcodeToken: data.passcodeToken, expiresAt: data.expiresAt }
    : { kind: 'signed-in' };
}

/** The one message for every refused sign-in: it never says whether the name exists or the account is locked. */
export const SIGN_IN_FAILED =
  'Sign-in failed: the user name or password is not right, or the account cannot sign in. If this keeps happening, ask an administrator.';

export const PASSCODE_FAILED =
  'Sign-in failed: the passcode was not accepted, or the account cannot sign in. Try again, or start again.';

export interface PasswordSignInInput {
  userName: string;
  password: string;
  /** With an expired password: the new one and its repeat, sent in the same request. */
  newPassword?: string;
  repeatNewPassword?: string;
}

/** POST /api/Authentication/ByUserNamePassword, each password field hashed and/or encrypted as the service asks. */
export async function signInWithPassword(
  options: SignInOptions,
  input: PasswordSignInInput,
): Promise<SignInOutcome> {
  const transport = await passwordTransport(options, input.userName);
  const body: Schemas['SignInDto'] = {
    userName: input.userName,
    password: await onTheWire(transport, input.password),
  };
  if (input.newPassword !== undefined && input.repeatNewPassword !== undefined) {
    body.newPassword = await onTheWire(transport, input.newPassword);
    body.repeatNewPassword = await onTheWire(transport, input.repeatNewPassword);
  }
  const { data, response } = await unwrap(api.POST('/api/Authentication/ByUserNamePassword', { body }));
  return outcome(response, data);
}

/** GET /api/Authentication/ByNegotiate: the browser answers the Negotiate challenge with its Kerberos ticket. */
export async function signInWithNegotiate(): Promise<SignInOutcome> {
  const { data, response } = await unwrap(api.GET('/api/Authentication/ByNegotiate'));
  return outcome(response, data);
}

/** Leaves the Login page for where the person was going (a local path, checked by the caller). */
export function goTo(returnUrl: string): void {
  window.location.assign(returnUrl);
}

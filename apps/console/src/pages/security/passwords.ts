import { wirePasswordHash } from '../../api/password-transport';
import type { SignInOptions } from '../../api/queries';
import { lengthRule } from '../../components/password-rules';

/**
 * A password an administrator sets (create, Reset password), as the service must receive it. The rules are
 * checked here first: with WirePasswordHash the service receives only the hash of the password and the
 * user's normalised name (spec: Password transport hardening 1), so the browser is where strength can be
 * enforced. The flag travels with the password: it never changes without one.
 */
export function administeredPassword(
  options: SignInOptions,
  userName: string,
  password: string,
  repeat: string,
  wire: boolean,
): { error: string } | { value: string } {
  if (password.length < options.passwordMinimumLength || password.length > options.passwordMaximumLength)
    return { error: `The password must be ${lengthRule(options).toLowerCase()}` };
  if (repeat !== password) return { error: 'The two passwords are not the same.' };
  return { value: wire ? wirePasswordHash(password, userName) : password };
}

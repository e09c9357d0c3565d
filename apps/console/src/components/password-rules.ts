import type { SignInOptions } from '../api/queries';

export interface RuleBreak {
  field: 'newPassword' | 'repeatNewPassword';
  message: string;
}

/** The length rule as people read it. */
export function lengthRule(options: SignInOptions): string {
  return `Between ${options.passwordMinimumLength} and ${options.passwordMaximumLength} characters.`;
}

/**
 * The service's rules for a new password, checked here before anything is hashed: for a WirePasswordHash
 * user the service receives only a hash and cannot check them itself (spec: Password transport hardening 1).
 * Lengths count characters as the service does (UTF-16 code units).
 */
export function checkNewPassword(
  options: SignInOptions,
  current: string,
  next: string,
  repeat: string,
): RuleBreak | null {
  if (next.length < options.passwordMinimumLength || next.length > options.passwordMaximumLength)
    return { field: 'newPassword', message: `The new password must be ${lengthRule(options).toLowerCase()}` };
  if (next === current)
    return { field: 'newPassword', message: 'The new password must differ from the current one.' };
  if (repeat !== next)
    return { field: 'repeatNewPassword', message: 'The two new passwords are not the same.' };
  return null;
}

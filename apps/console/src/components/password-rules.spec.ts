import { describe, expect, it } from '@jest/globals';
import type { SignInOptions } from '../api/queries';
import { checkNewPassword } from './password-rules';

/** The console's check of a new password before it is hashed (npm run test:unit: no browser). */
describe('checkNewPassword', () => {
  const options = { passwordMinimumLength: 8, passwordMaximumLength: 12 } as SignInOptions;

  it.each([
    ['too short', 'old-pass', 'short', 'short', 'newPassword'],
    ['too long', 'old-pass', 'x'.repeat(13), 'x'.repeat(13), 'newPassword'],
    ['the current one', 'old-pass', 'old-pass', 'old-pass', 'newPassword'],
    ['not repeated', 'old-pass', 'new-pass', 'new-pasz', 'repeatNewPassword'],
  ])('refuses a new password %s, naming the field', (_what, current, next, repeat, field) => {
    expect(checkNewPassword(options, current, next, repeat)?.field).toBe(field);
  });

  it('takes one within the rules', () => {
    expect(checkNewPassword(options, 'old-pass', 'new-pass', 'new-pass')).toBeNull();
  });
});

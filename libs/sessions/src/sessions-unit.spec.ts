import { parseRevocation } from './session-revocation.service';
import { TimeoutError, withTimeout } from '@app/runtime';

describe('parseRevocation (messages on decisioning:sessions)', () => {
  const good = {
    v: 1,
    event: 'revoked',
    userGuid: '8b6b6bfe-8d2e-4287-ae3e-f6defd5d700d',
    validFrom: 1_763_800_000_000,
    origin: 'node-a',
  };

  it('accepts a well-formed message', () => {
    expect(parseRevocation(JSON.stringify(good))).toEqual(good);
  });

  it.each([
    ['not JSON', '{'],
    ['another version', JSON.stringify({ ...good, v: 2 })],
    ['another event', JSON.stringify({ ...good, event: 'created' })],
    ['a user that is not a Guid', JSON.stringify({ ...good, userGuid: '*' })],
    ['a fractional instant', JSON.stringify({ ...good, validFrom: 1.5 })],
    ['an instant as text', JSON.stringify({ ...good, validFrom: '1' })],
    ['no origin', JSON.stringify({ ...good, origin: undefined })],
    ['null', 'null'],
  ])('ignores %s', (_label, payload) => {
    expect(parseRevocation(payload)).toBeNull();
  });
});

describe('withTimeout', () => {
  it('passes the result and the failure of work that settles in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 1000, 'work')).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('boom')), 1000, 'work')).rejects.toThrow('boom');
  });

  it('rejects with TimeoutError when the work is slower', async () => {
    const never = new Promise<never>(() => undefined);
    const err = await withTimeout(never, 20, 'Revoking').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toBe('Revoking took longer than 20 ms');
  });
});

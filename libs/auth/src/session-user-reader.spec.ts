import type { IdentityAuthService, SessionUser } from '@app/identity';
import { SessionUserReader } from './session-user-reader';

/**
 * Pure logic of the single-flight rule. The identity service is replaced by a counter of reads whose
 * completion the test controls (the end-to-end tests cover the real database read).
 */
function setUp() {
  const pending: ((u: SessionUser | null) => void)[] = [];
  const identity = {
    sessionUser: jest.fn(
      () =>
        new Promise<SessionUser | null>((resolve) => {
          pending.push(resolve);
        }),
    ),
  };
  const reader = new SessionUserReader(identity as unknown as IdentityAuthService);
  return { reader, identity, pending };
}

describe('SessionUserReader single-flight', () => {
  it('never reuses a read that started before the request arrived', async () => {
    const { reader, identity, pending } = setUp();
    const first = reader.read('u', reader.arrival());
    const later = reader.arrival(); // arrives while the first read is in flight
    const second = reader.read('u', later);
    expect(identity.sessionUser).toHaveBeenCalledTimes(2);
    pending[0](null);
    pending[1](null);
    await Promise.all([first, second]);
  });

  it('shares a read that started after every sharing request arrived', async () => {
    const { reader, identity, pending } = setUp();
    const a = reader.arrival();
    const b = reader.arrival();
    const readA = reader.read('u', a);
    const readB = reader.read('u', b); // b arrived before readA started
    expect(identity.sessionUser).toHaveBeenCalledTimes(1);
    pending[0](null);
    expect(await readA).toBeNull();
    expect(await readB).toBeNull();
  });

  it('keeps users apart and forgets finished reads', async () => {
    const { reader, identity, pending } = setUp();
    const a = reader.arrival();
    const r1 = reader.read('u1', a);
    const r2 = reader.read('u2', a);
    expect(identity.sessionUser).toHaveBeenCalledTimes(2);
    pending.forEach((p) => p(null));
    await Promise.all([r1, r2]);
    const r3 = reader.read('u1', a);
    expect(identity.sessionUser).toHaveBeenCalledTimes(3);
    pending[2](null);
    await r3;
  });

  it('shares a failure only with requests that may share the read', async () => {
    const { reader, pending } = setUp();
    const a = reader.arrival();
    const b = reader.arrival();
    const readA = reader.read('u', a);
    const readB = reader.read('u', b);
    const failure = new Error('database down');
    const rejectAll = readA.then(() => undefined);
    void rejectAll.catch(() => undefined);
    // resolve with a rejection
    (pending[0] as unknown as (v: Promise<never>) => void)(Promise.reject(failure));
    await expect(readA).rejects.toBe(failure);
    await expect(readB).rejects.toBe(failure);
  });
});

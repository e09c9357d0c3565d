import { Strategy } from 'passport-strategy';
import { authenticateNow, authenticateWith } from './authenticate-with';

/** A Passport strategy whose authenticate does `act` with its actions (this.success, this.fail…). */
function strategy(act: (self: Strategy & Record<string, (...args: unknown[]) => void>) => void): Strategy {
  const s = new Strategy();
  s.authenticate = function (this: Strategy & Record<string, (...args: unknown[]) => void>) {
    act(this);
  };
  return s;
}

describe('authenticateNow', () => {
  it('returns the outcome itself, no Promise, when the strategy ends in the call', () => {
    expect(
      authenticateNow(
        strategy((s) => s.success({ id: 1 })),
        {},
        {},
      ),
    ).toEqual({
      kind: 'success',
      user: { id: 1 },
    });
    expect(
      authenticateNow(
        strategy((s) => s.fail('no', 401)),
        {},
        {},
      ),
    ).toEqual({
      kind: 'fail',
      challenge: 'no',
      status: 401,
    });
    expect(
      authenticateNow(
        strategy((s) => s.success(false)),
        {},
        {},
      ),
    ).toMatchObject({ kind: 'fail' });
    expect(
      authenticateNow(
        strategy((s) => s.pass()),
        {},
        {},
      ),
    ).toEqual({ kind: 'pass' });
  });

  it("throws the strategy's error at once, whether handed to error() or thrown", () => {
    const problem = new Error('refused');
    expect(() =>
      authenticateNow(
        strategy((s) => s.error(problem)),
        {},
        {},
      ),
    ).toThrow(problem);
    expect(() =>
      authenticateNow(
        strategy(() => {
          throw problem;
        }),
        {},
        {},
      ),
    ).toThrow(problem);
  });

  it('gives a Promise when the strategy ends later, settled by its first action only', async () => {
    const later = authenticateNow(
      strategy((s) =>
        setImmediate(() => {
          s.success({ id: 2 });
          s.error(new Error('too late'));
        }),
      ),
      {},
      {},
    );
    expect(later).toBeInstanceOf(Promise);
    await expect(later).resolves.toEqual({ kind: 'success', user: { id: 2 } });
    const refused = authenticateNow(
      strategy((s) => setImmediate(() => s.error(new Error('no')))),
      {},
      {},
    );
    await expect(refused).rejects.toThrow('no');
  });

  it('keeps the first action when a strategy ends twice in the call', () => {
    expect(
      authenticateNow(
        strategy((s) => {
          s.fail('first', 401);
          s.success({ id: 3 });
        }),
        {},
        {},
      ),
    ).toEqual({ kind: 'fail', challenge: 'first', status: 401 });
  });

  it('runs each request on an object of its own: concurrent runs never share their actions', async () => {
    const shared = strategy((s) => {
      const user = { n: Math.random() };
      setImmediate(() => s.success(user));
    });
    const runs = await Promise.all(
      Array.from({ length: 20 }, () => Promise.resolve(authenticateNow(shared, {}, {}))),
    );
    expect(new Set(runs.map((r) => (r.kind === 'success' ? r.user : null))).size).toBe(20);
  });
});

describe('authenticateWith', () => {
  it('is always a Promise: an error at once is a rejection, not a throw', async () => {
    const run = authenticateWith(
      strategy((s) => s.error(new Error('refused'))),
      {},
      {},
    );
    expect(run).toBeInstanceOf(Promise);
    await expect(run).rejects.toThrow('refused');
    await expect(
      authenticateWith(
        strategy((s) => s.success({ id: 4 })),
        {},
        {},
      ),
    ).resolves.toEqual({
      kind: 'success',
      user: { id: 4 },
    });
  });
});

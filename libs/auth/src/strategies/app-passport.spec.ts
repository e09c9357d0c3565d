import { EventEmitter } from 'node:events';
import { Strategy } from 'passport-strategy';
import { AppPassport } from './app-passport';

type Actions = Strategy & Record<string, (...args: unknown[]) => void>;

/** A Passport strategy whose authenticate does `act` with its actions (this.success, this.fail…). */
function strategy(act: (self: Actions, request: { n?: number }) => void): Strategy {
  const s = new Strategy();
  s.authenticate = function (this: Actions, request: object) {
    act(this, request);
  };
  return s;
}

function passportWith(name: string, s: Strategy): AppPassport {
  const passport = new AppPassport();
  passport.use(name, s);
  return passport;
}

describe('AppPassport.run: a strategy run by passport.authenticate, its ending as a Promise', () => {
  it("ends as the strategy's action ends it: success, fail with its challenge, pass", async () => {
    await expect(
      passportWith(
        's',
        strategy((s) => s.success({ id: 1 })),
      ).run('s', {}, {}),
    ).resolves.toEqual({
      kind: 'success',
      user: { id: 1 },
    });
    await expect(
      passportWith(
        's',
        strategy((s) => s.fail('no', 401)),
      ).run('s', {}, {}),
    ).resolves.toEqual({
      kind: 'fail',
      challenge: 'no',
      status: 401,
    });
    await expect(
      passportWith(
        's',
        strategy((s) => s.success(false)),
      ).run('s', {}, {}),
    ).resolves.toMatchObject({
      kind: 'fail',
    });
    await expect(
      passportWith(
        's',
        strategy((s) => s.pass()),
      ).run('s', {}, {}),
    ).resolves.toEqual({
      kind: 'pass',
    });
  });

  it("rejects with the strategy's error, whether handed to error() or thrown", async () => {
    const problem = new Error('refused');
    await expect(
      passportWith(
        's',
        strategy((s) => s.error(problem)),
      ).run('s', {}, {}),
    ).rejects.toBe(problem);
    const throwing = strategy(() => {
      throw problem;
    });
    await expect(passportWith('s', throwing).run('s', {}, {})).rejects.toBe(problem);
  });

  it('gives each concurrent request its own ending, however the strategy interleaves them', async () => {
    const later = strategy((s, request) => setImmediate(() => s.success({ n: request.n })));
    const passport = passportWith('later', later);
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, n) => passport.run<{ n: number }>('later', { n }, {})),
    );
    expect(runs.map((r) => (r.kind === 'success' ? r.user.n : -1))).toEqual([...Array(20).keys()]);
  });

  it('holds its own strategies: two applications may register the same name', async () => {
    const first = passportWith(
      'same',
      strategy((s) => s.success({ app: 1 })),
    );
    const second = passportWith(
      'same',
      strategy((s) => s.success({ app: 2 })),
    );
    await expect(first.run('same', {}, {})).resolves.toMatchObject({ user: { app: 1 } });
    await expect(second.run('same', {}, {})).resolves.toMatchObject({ user: { app: 2 } });
  });

  it('ends as answered when a strategy redirects (Passport ends the response itself), and hands on its options', async () => {
    // The response as Passport uses it for a redirect: statusCode, setHeader, end (which finishes it).
    const headers: Record<string, string> = {};
    const response = Object.assign(new EventEmitter(), {
      statusCode: 200,
      setHeader: (name: string, value: string) => (headers[name] = value),
      end: () => response.emit('finish'),
    });
    let seen: unknown;
    const redirecting = new Strategy();
    redirecting.authenticate = function (this: Actions, _request: object, options?: { to?: string }) {
      seen = options;
      setImmediate(() => this.redirect(options?.to ?? '/'));
    };
    const run = passportWith('r', redirecting).run('r', {}, response, {
      strategy: { to: 'https://provider.example/authorize' },
      mayRedirect: true,
    });
    await expect(run).resolves.toEqual({ kind: 'answered' });
    expect(response.statusCode).toBe(302);
    expect(headers.Location).toBe('https://provider.example/authorize');
    expect(seen).toMatchObject({ to: 'https://provider.example/authorize', session: false });
  });
});

import { Injectable, Module } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import type { AddressInfo } from 'node:net';
import { Strategy } from 'passport-strategy';
import request from 'supertest';
import type { Actor } from '@app/access';
import type { HttpRequestLike } from '@app/http-edge';
import { Problems } from '@app/problems';
import {
  CREDENTIAL_CARRIERS,
  CredentialCarrier,
  ResolvedCredential,
  SPEC_CREDENTIAL_CARRIERS,
} from '@app/auth';
import { ApiKeyService } from '@app/api-keys';
import { AppModule } from '../../apps/server/src/app.module';
import { APPLICATION_OPTIONS, configureApp } from '../../apps/server/src/create-app';
import { createUser, CreatedUser, landlordActor } from '../factories/identity.factory';
import { signIn, SignedIn } from '../support/auth';
import { testSettings } from '../support/test-app';

/*
 * A new credential scheme plugs in through ONE place: the ordered carrier list (CREDENTIAL_CARRIERS). Here a
 * throwaway scheme (a shared secret in a header of its own, standing in for a client certificate or an LDAP
 * bind) is registered the Nest way, as a PassportStrategy provider in a test module, and shown to be used
 * only where the carrier list puts it, while the spec's three carriers keep their order and exclusivity.
 */

const SESSION = '/api/Authentication/Session';
const HEADER = 'x-test-secret';
const SECRET = 'open-sesame';

type Verify = (secret: string, done: (err: unknown, user?: ResolvedCredential | false) => void) => void;

/** The scheme's Passport strategy: the header's value to verify, a fail when it is absent. */
class HeaderSecretStrategy extends Strategy {
  name = 'test-header-secret';

  constructor(private readonly verify: Verify) {
    super();
  }

  override authenticate(req: HttpRequestLike): void {
    const value = req.headers[HEADER];
    if (typeof value !== 'string') return this.fail(401);
    this.verify(value, (err, user) => {
      if (err) this.error(err as Error);
      else if (!user) this.fail(401);
      else this.success(user);
    });
  }
}

/** Who the scheme signs in, and how often it was asked (shared by the app instances of this file). */
const scheme = { actor: undefined as Actor | undefined, calls: 0 };

@Injectable()
class ThrowawayStrategy extends PassportStrategy(HeaderSecretStrategy, 'test-header-secret') {
  constructor() {
    super();
  }

  validate(secret: string): ResolvedCredential | false {
    scheme.calls++;
    if (secret !== SECRET || !scheme.actor) return false;
    return { actor: { ...scheme.actor, credential: 'api-key' } };
  }
}

/** The test module that registers the strategy. Registering is not enough: see the first describe. */
@Module({ providers: [ThrowawayStrategy] })
class ThrowawaySchemeModule {}

const throwawayCarrier: CredentialCarrier = {
  name: 'test-header-secret',
  strategy: ThrowawayStrategy,
  present: (r) => r.headers[HEADER] !== undefined,
  refusal: () => Problems.unauthenticated(),
};

interface Started {
  app: NestExpressApplication;
  url: string;
}

/** The whole app with the throwaway module, and the carrier list replaced when `carriers` is given. */
async function start(carriers?: readonly CredentialCarrier[]): Promise<Started> {
  const settings = testSettings({ DatabaseProvider: 'sqlite' });
  let builder = Test.createTestingModule({
    imports: [AppModule.forRoot(settings, { imports: [ThrowawaySchemeModule] })],
  });
  if (carriers) builder = builder.overrideProvider(CREDENTIAL_CARRIERS).useValue(carriers);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(APPLICATION_OPTIONS);
  configureApp(app, settings);
  await app.listen(0, '127.0.0.1');
  return { app, url: `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}` };
}

async function people(t: Started): Promise<{ throwaway: CreatedUser; bearer: SignedIn; key: string }> {
  const throwaway = await createUser(t.app, { name: `throwaway-${Math.random().toString(36).slice(2, 8)}` });
  scheme.actor = throwaway.actor;
  const other = await createUser(t.app, { name: `bearer-${Math.random().toString(36).slice(2, 8)}` });
  const landlord = await landlordActor(t.app);
  const key = (
    await t.app.get(ApiKeyService).create(landlord, { userRegistryGuid: landlord.userGuid, name: 'extra' })
  ).key;
  return { throwaway, bearer: await signIn(t.url, other.name, other.password), key };
}

describe('an extra credential strategy', () => {
  it('the service ships exactly the three spec carriers, in their order', async () => {
    const t = await start();
    try {
      const carriers = t.app.get<readonly CredentialCarrier[]>(CREDENTIAL_CARRIERS);
      expect(carriers.map((c) => c.name)).toEqual(['api-key', 'jwt', 'authentication-jwt']);
      expect(carriers).toBe(SPEC_CREDENTIAL_CARRIERS);
    } finally {
      await t.app.close();
    }
  });

  describe('registered as a PassportStrategy but not in the carrier list', () => {
    let t: Started;
    beforeAll(async () => {
      t = await start();
      await people(t);
      scheme.calls = 0;
    });
    afterAll(() => t.app.close());

    it('is never run: its header alone is no credential', async () => {
      const res = await request(t.url).get(SESSION).set(HEADER, SECRET);
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ type: 'urn:problem-type:authentication-required' });
      expect(scheme.calls).toBe(0);
    });
  });

  describe('added at the end of the carrier list', () => {
    let t: Started;
    let who: Awaited<ReturnType<typeof people>>;
    beforeAll(async () => {
      t = await start([...SPEC_CREDENTIAL_CARRIERS, throwawayCarrier]);
      who = await people(t);
    });
    afterAll(() => t.app.close());
    beforeEach(() => {
      scheme.calls = 0;
    });

    it('signs in when it is the only carrier present', async () => {
      const res = await request(t.url).get(SESSION).set(HEADER, SECRET);
      expect(res.status).toBe(200);
      expect(res.body.userName).toBe(who.throwaway.name);
      expect(scheme.calls).toBe(1);
    });

    it('refuses a bad secret with its own 401', async () => {
      const res = await request(t.url).get(SESSION).set(HEADER, 'wrong');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ type: 'urn:problem-type:authentication-required' });
      expect(scheme.calls).toBe(1);
    });

    it('is not evaluated when an earlier carrier is present, good or bad', async () => {
      const badKey = await request(t.url).get(SESSION).set('X-Api-Key', 'bad-key').set(HEADER, SECRET);
      expect(badKey.status).toBe(401);
      expect(badKey.body.reason).toBe('Key Not Found');
      const goodKey = await request(t.url).get(SESSION).set('X-Api-Key', who.key).set(HEADER, SECRET);
      expect(goodKey.status).toBe(200);
      expect(goodKey.body.userName).toBe('Administrator');
      const goodBearer = await request(t.url)
        .get(SESSION)
        .set('Authorization', `Bearer ${who.bearer.token}`)
        .set(HEADER, SECRET);
      expect(goodBearer.status).toBe(200);
      expect(goodBearer.body.credential).toBe('bearer');
      const badCookie = await request(t.url)
        .get(SESSION)
        .set('Cookie', 'authentication-jwt=garbage')
        .set(HEADER, SECRET);
      expect(badCookie.status).toBe(401);
      expect(scheme.calls).toBe(0);
    });

    it('leaves the spec carriers their order and exclusivity', async () => {
      const keyThenBearer = await request(t.url)
        .get(SESSION)
        .set('X-Api-Key', 'bad-key')
        .set('Authorization', `Bearer ${who.bearer.token}`);
      expect(keyThenBearer.status).toBe(401);
      expect(keyThenBearer.body.reason).toBe('Key Not Found');
      const bearerThenCookie = await request(t.url)
        .get(SESSION)
        .set('Authorization', `Bearer ${who.bearer.token}x`)
        .set('Cookie', who.bearer.cookie);
      expect(bearerThenCookie.status).toBe(401);
      const cookieAlone = await request(t.url).get(SESSION).set('Cookie', who.bearer.cookie);
      expect(cookieAlone.status).toBe(200);
      expect(cookieAlone.body.credential).toBe('cookie');
      expect(scheme.calls).toBe(0);
    });
  });

  describe('put first in the carrier list', () => {
    let t: Started;
    beforeAll(async () => {
      t = await start([throwawayCarrier, ...SPEC_CREDENTIAL_CARRIERS]);
      await people(t);
    });
    afterAll(() => t.app.close());

    it('decides alone when present, and its refusal does not fall through to a good later carrier', async () => {
      scheme.calls = 0;
      const first = await request(t.url).get(SESSION).set(HEADER, SECRET).set('X-Api-Key', 'bad-key');
      expect(first.status).toBe(200);
      expect(first.body.userName).toBe(scheme.actor?.userName);
      const landlord = await landlordActor(t.app);
      const key = (
        await t.app
          .get(ApiKeyService)
          .create(landlord, { userRegistryGuid: landlord.userGuid, name: 'later' })
      ).key;
      const refused = await request(t.url).get(SESSION).set(HEADER, 'wrong').set('X-Api-Key', key);
      expect(refused.status).toBe(401);
      expect(refused.body.reason).toBeUndefined();
      expect(scheme.calls).toBe(2);
    });
  });
});

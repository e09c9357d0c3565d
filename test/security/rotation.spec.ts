import request from 'supertest';
import { ApiKeyService } from '@app/api-keys';
import { createUser } from '../factories/identity.factory';
import { createSqliteDirectory } from '../support/databases';
import { startTestApp, TEST_API_HMAC_KEY } from '../support/test-app';

/** docs/SECURITY.md, Rotation: ApiHmacKeyPrevious keeps the keys of the old secret working for a window. */
describe('ApiHmacKey rotation', () => {
  it('after the rotation, keys of the old secret work while ApiHmacKeyPrevious names it, and stop when it is removed', async () => {
    const dataDirectory = createSqliteDirectory();
    const before = await startTestApp('sqlite', {}, { dataDirectory });
    const user = await createUser(before.app);
    const { key } = await before.app
      .get(ApiKeyService)
      .create(user.actor, { userRegistryGuid: user.guid, name: 'k' });
    await before.close();

    const rotated = `${TEST_API_HMAC_KEY}-rotated-0123456789`;
    const during = await startTestApp(
      'sqlite',
      { ApiHmacKey: rotated, ApiHmacKeyPrevious: TEST_API_HMAC_KEY },
      { dataDirectory },
    );
    try {
      await request(during.url).get('/api/Authentication/Session').set('x-api-key', key).expect(200);
    } finally {
      await during.close();
    }
    const after = await startTestApp('sqlite', { ApiHmacKey: rotated }, { dataDirectory });
    try {
      await request(after.url).get('/api/Authentication/Session').set('x-api-key', key).expect(401);
    } finally {
      await after.close();
    }
  });
});

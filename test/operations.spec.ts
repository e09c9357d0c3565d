import request from 'supertest';
import { startTestApp, TestApp } from './support/test-app';
import { TEST_PROVIDERS } from './support/databases';
import { createUser } from './factories/identity.factory';
import { signIn } from './support/auth';

describe.each(TEST_PROVIDERS)('operations on %s', (provider) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(provider);
  });
  afterAll(() => t.close());

  it('answers /api/Ready anonymously with its status only, and a signed-in caller with the database check', async () => {
    const res = await request(t.url).get('/api/Ready').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const u = await createUser(t.app);
    const { token } = await signIn(t.url, u.name, u.password);
    const detail = await request(t.url).get('/api/Ready').set('Authorization', `Bearer ${token}`).expect(200);
    expect(detail.body).toEqual({ status: 'ok', checks: { database: { status: 'up' } } });
  });

  it('echoes a well-formed x-request-id and replaces a hostile one', async () => {
    expect(
      (await request(t.url).get('/api/Ready').set('x-request-id', 'abc-123')).headers['x-request-id'],
    ).toBe('abc-123');
    const hostile = await request(t.url).get('/api/Ready').set('x-request-id', 'a b\tc');
    expect(hostile.headers['x-request-id']).not.toBe('a b\tc');
  });

  it('answers an unknown route with a 404 problem', async () => {
    const res = await request(t.url).get('/api/NoSuchThing').expect(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 404, title: 'Not Found', instance: '/api/NoSuchThing' });
  });

  it('refuses a protected route without a credential with a 401 problem', async () => {
    const res = await request(t.url).get('/api/UserRegistry').expect(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 401, type: 'urn:problem-type:authentication-required' });
  });

  it('answers malformed JSON with a 400 problem and never a stack trace', async () => {
    const res = await request(t.url)
      .post('/api/UserRegistry')
      .set('content-type', 'application/json')
      .send('{"a":');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: 400, detail: 'The request body is not valid JSON.' });
    expect(JSON.stringify(res.body)).not.toMatch(/at .*\.js|node_modules/);
  });

  it('answers a bare JSON value (null, a number, a string, a boolean) with a 400 naming the body', async () => {
    for (const body of ['null', '5', '"text"', 'true']) {
      const res = await request(t.url)
        .post('/api/UserRegistry')
        .set('content-type', 'application/json')
        .send(body);
      expect([body, res.status]).toEqual([body, 400]);
      expect(res.body).toMatchObject({
        type: 'urn:problem-type:validation',
        detail: expect.stringContaining('not a bare null, number, string or boolean'),
        errors: [expect.objectContaining({ field: '$', code: 'invalid_value' })],
      });
    }
    const malformed = await request(t.url)
      .post('/api/UserRegistry')
      .set('content-type', 'application/json')
      .send('{"a":');
    expect(malformed.body.errors).toEqual([
      { field: '$', message: 'The request body is not valid JSON.', code: 'invalid_value' },
    ]);
  });

  it('answers a body over 1 MiB with a 413 problem', async () => {
    const res = await request(t.url)
      .post('/api/UserRegistry')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ x: 'a'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ status: 413, detail: 'The request body is larger than allowed.' });
    // just under the limit is read (and then refused for lack of a credential)
    const under = await request(t.url)
      .post('/api/UserRegistry')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ x: 'a'.repeat(1_000_000) }));
    expect(under.status).toBe(401);
  });

  it('sends the helmet security headers', async () => {
    const res = await request(t.url).get('/api/Ready');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('answers the API without an ETag, so a conditional request still gets the live answer', async () => {
    const res = await request(t.url).get('/api/Ready').expect(200);
    expect(res.headers.etag).toBeUndefined();
    const again = await request(t.url)
      .get('/api/Ready')
      .set('if-none-match', 'W/"anything"')
      .set('if-modified-since', new Date().toUTCString());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
  });

  it('serves the API explorer only to authenticated callers', async () => {
    const res = await request(t.url).get('/swagger/index.html').expect(401);
    expect(res.body).toMatchObject({ status: 401 });
    await request(t.url).get('/swagger/json').expect(401);
  });
});

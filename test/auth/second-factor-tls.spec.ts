import request from 'supertest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpAdapterHost } from '@nestjs/core';
import { loadSettings } from '@app/config';
import { HttpSecondFactorProvider, SecondFactorUnavailable } from '@app/auth';
import { startTestApp } from '../support/test-app';
import { createUser } from '../factories/identity.factory';
import { loginRows } from '../support/auth';

interface Certificate {
  key: Buffer;
  cert: Buffer;
  /** SHA-1 fingerprint as openssl prints it: "AB:CD:..." */
  sha1: string;
}

/** A self-signed certificate made by the openssl CLI (a real certificate, no test double). */
function selfSigned(dir: string, name: string, subjectAltName: string): Certificate {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.pem`);
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      `/CN=${name}`,
      '-addext',
      `subjectAltName=${subjectAltName}`,
    ],
    { stdio: 'ignore' },
  );
  const printed = execFileSync('openssl', [
    'x509',
    '-in',
    cert,
    '-noout',
    '-fingerprint',
    '-sha1',
  ]).toString();
  const sha1 = /=([0-9A-F:]+)/i.exec(printed)![1];
  return { key: readFileSync(key), cert: readFileSync(cert), sha1 };
}

/** A self-signed certificate for 127.0.0.1 that expired in 2020 (`openssl ca` can set the dates). */
function expiredSelfSigned(dir: string): Certificate {
  const base = join(dir, 'expired');
  mkdirSync(base);
  writeFileSync(join(base, 'index.txt'), '');
  writeFileSync(join(base, 'serial'), '01\n');
  writeFileSync(
    join(base, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = local',
      '[local]',
      'database = index.txt',
      'serial = serial',
      'new_certs_dir = .',
      'default_md = sha256',
      'policy = any',
      'copy_extensions = copy',
      'unique_subject = no',
      '[any]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: base, stdio: 'ignore' });
  run([
    'req',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    'key.pem',
    '-out',
    'req.csr',
    '-subj',
    '/CN=expired',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  run([
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-selfsign',
    '-keyfile',
    'key.pem',
    '-in',
    'req.csr',
    '-out',
    'cert.pem',
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200102000000Z',
  ]);
  const printed = execFileSync('openssl', [
    'x509',
    '-in',
    join(base, 'cert.pem'),
    '-noout',
    '-fingerprint',
    '-sha1',
  ]).toString();
  return {
    key: readFileSync(join(base, 'key.pem')),
    cert: readFileSync(join(base, 'cert.pem')),
    sha1: /=([0-9A-F:]+)/i.exec(printed)![1],
  };
}

/** An HTTPS provider that accepts every passcode and counts the requests that reached it. */
async function startProvider(c: Certificate): Promise<{ server: Server; url: string; hits: () => number }> {
  let hits = 0;
  const server = createServer({ key: c.key, cert: c.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      hits++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"valid":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { server, url: `https://127.0.0.1:${port}/verify`, hits: () => hits };
}

describe('second-factor endpoint TLS options (a real HTTPS server, self-signed)', () => {
  let dir: string;
  let good: Certificate; // names 127.0.0.1
  let otherHost: Certificate; // names only other.example
  let p: Awaited<ReturnType<typeof startProvider>>;
  let q: Awaited<ReturnType<typeof startProvider>>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mfa-tls-'));
    good = selfSigned(dir, 'mfa-provider', 'IP:127.0.0.1,DNS:localhost');
    otherHost = selfSigned(dir, 'other', 'DNS:other.example');
    p = await startProvider(good);
    q = await startProvider(otherHost);
  });
  afterAll(async () => {
    await new Promise((resolve) => p.server.close(resolve));
    await new Promise((resolve) => q.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  const providerFor = (url: string, env: Record<string, string> = {}) =>
    new HttpSecondFactorProvider(
      loadSettings({ MultifactorAuthenticationEndpoint: url, ...env }),
      new HttpAdapterHost(),
    );

  it('without an option the self-signed certificate is refused and nothing is sent', async () => {
    const before = p.hits();
    await expect(providerFor(p.url).verify('u', '1')).rejects.toBeInstanceOf(SecondFactorUnavailable);
    expect(p.hits()).toBe(before);
  });

  it('OutboundHttpMfaAmCertificateBypass accepts it', async () => {
    await expect(
      providerFor(p.url, { OutboundHttpMfaAmCertificateBypass: 'True' }).verify('u', '1'),
    ).resolves.toBe(true);
    // Bypass is no validation at all: even a certificate for another host.
    await expect(
      providerFor(q.url, { OutboundHttpMfaAmCertificateBypass: 'True' }).verify('u', '1'),
    ).resolves.toBe(true);
  });

  it('the right thumbprint accepts it, written with or without colons, in any case', async () => {
    for (const pin of [good.sha1, good.sha1.toLowerCase(), good.sha1.replace(/:/g, '')]) {
      await expect(
        providerFor(p.url, { OutboundHttpMfaAmCertificateThumbprint: pin }).verify('u', '1'),
      ).resolves.toBe(true);
    }
  });

  it('a wrong thumbprint is refused before a byte is sent', async () => {
    const before = p.hits();
    const wrong = otherHost.sha1;
    await expect(
      providerFor(p.url, { OutboundHttpMfaAmCertificateThumbprint: wrong }).verify('u', '1'),
    ).rejects.toThrow(/thumbprint does not match/);
    expect(p.hits()).toBe(before);
  });

  it('the right thumbprint of a certificate that does not name the host is refused (host name still checked)', async () => {
    const before = q.hits();
    await expect(
      providerFor(q.url, { OutboundHttpMfaAmCertificateThumbprint: otherHost.sha1 }).verify('u', '1'),
    ).rejects.toThrow(/does not name the host/);
    expect(q.hits()).toBe(before);
  });

  it('the right thumbprint of an expired certificate is refused (only chain-trust errors are tolerated)', async () => {
    const expired = await startProvider(expiredSelfSigned(dir));
    try {
      const pin = (await import('node:crypto')).X509Certificate;
      const cert = new pin(readFileSync(join(dir, 'expired', 'cert.pem')));
      expect(Date.parse(cert.validTo)).toBeLessThan(Date.now());
      await expect(
        providerFor(expired.url, { OutboundHttpMfaAmCertificateThumbprint: cert.fingerprint }).verify(
          'u',
          '1',
        ),
      ).rejects.toThrow(/expired/i);
      expect(expired.hits()).toBe(0);
      // Bypass still takes it: no validation at all.
      await expect(
        providerFor(expired.url, { OutboundHttpMfaAmCertificateBypass: 'True' }).verify('u', '1'),
      ).resolves.toBe(true);
    } finally {
      await new Promise((resolve) => expired.server.close(resolve));
    }
  });

  it('through the whole service: a pinned HTTPS provider completes the sign-in', async () => {
    const t = await startTestApp('sqlite', {
      EnableMultifactorAuthentication: 'True',
      MultifactorAuthenticationEndpoint: p.url,
      MultifactorAuthenticationClientKey: 'real-provider-key',
      OutboundHttpMfaAmCertificateThumbprint: good.sha1,
    });
    try {
      const u = await createUser(t.app);
      const step = await request(t.url)
        .post('/api/Authentication/ByUserNamePassword')
        .send({ userName: u.name, password: u.password })
        .expect(202);
      const res = await request(t.url)
        .post('/api/Authentication/Passcode')
        .send({ passcodeToken: step.body.passcodeToken, passcode: '654321' })
        .expect(200);
      await request(t.url)
        .get('/api/Authentication/Session')
        .set('authorization', `Bearer ${res.body.token}`)
        .expect(200);
      // The passcode requested (13), then the success.
      expect((await loginRows(t.app, u.name)).map((r) => r.Failed)).toEqual([true, false]);
    } finally {
      await t.close();
    }
  });
});

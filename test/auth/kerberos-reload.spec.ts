import type { KerberosAddOn as Kerberos } from '@app/auth';
import { addPrincipal, negotiateToken, testKdc } from '../support/kdc';

/**
 * Guards test/support/kerberos-once.js: Jest evaluates the add-on's JavaScript once per test file around
 * one shared native binding, which without that mapping makes every GSS step after the first test file
 * of a worker hang.
 */
describe('the kerberos add-on under Jest', () => {
  it('still completes a GSS step after its JavaScript was evaluated twice in one process', async () => {
    const loaded: Kerberos[] = [];
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    jest.isolateModules(() => loaded.push(require('kerberos') as Kerberos));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    jest.isolateModules(() => loaded.push(require('kerberos') as Kerberos));
    expect(loaded[0]).not.toBe(loaded[1]);
    addPrincipal(testKdc(), 'reload', 'Reload-Krb-Password-1');
    const token = negotiateToken(testKdc(), 'reload', 'Reload-Krb-Password-1');
    const server = await loaded[1].initializeServer('');
    let timer: NodeJS.Timeout | undefined;
    const hung = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('the GSS step never completed')), 10_000);
    });
    try {
      await Promise.race([server.step(token), hung]);
    } finally {
      clearTimeout(timer);
    }
    expect(server.username).toBe('reload@TEST.LOCAL');
  });
});

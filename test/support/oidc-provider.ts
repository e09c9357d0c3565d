import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from './free-port';
import { waitFor } from './spawn-server';

export const OIDC_CLIENT_ID = 'decisioning-service';
export const OIDC_CLIENT_SECRET = 'decisioning-service-client-secret-0123456789';

export interface TestOidcProvider {
  /** http://127.0.0.1:port — the issuer, for OAuthAuthority. */
  issuer: string;
  port: number;
  /** Starts the provider, registering the client with these redirect URIs. */
  start(redirectUris: string[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * A REAL OpenID Provider (oidc-provider 8, test/support/oidc-provider-server.mjs) on 127.0.0.1, in a child
 * process: oidc-provider is ESM with many ESM dependencies that Jest's CommonJS loader cannot load (docs:
 * authentication.md). The port is chosen first so the service can be configured with the issuer before the
 * provider (which needs the service's callback URL) starts; the service discovers lazily.
 */
export async function reserveOidcProvider(): Promise<TestOidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let output = '';
  return {
    issuer,
    port,
    async start(redirectUris) {
      child = spawn(process.execPath, [join(__dirname, 'oidc-provider-server.mjs')], {
        env: {
          PATH: process.env.PATH ?? '',
          OIDC_PORT: String(port),
          OIDC_CLIENT_ID,
          OIDC_CLIENT_SECRET,
          OIDC_REDIRECT_URIS: redirectUris.join(' '),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
      const started = child;
      await waitFor(
        () => {
          if (started.exitCode !== null) throw new Error(`OpenID Provider exited: ${output}`);
          return output.includes(`listening ${issuer}`);
        },
        20_000,
        'the OpenID Provider',
      );
    },
    async close() {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGTERM');
      await exited;
    },
  };
}

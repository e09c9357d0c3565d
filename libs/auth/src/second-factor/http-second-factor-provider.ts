import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { SHIPPED_MFA_CLIENT_KEY, SECOND_FACTOR_SETTINGS, type SecondFactorSettings } from '@app/config';
import { SecondFactorProvider, SecondFactorUnavailable } from './second-factor-provider';
import { connectVerified, parseThumbprint, SecondFactorTrust } from './second-factor-tls';

/** Longest wait for the provider's answer, connection and TLS included. */
export const SECOND_FACTOR_TIMEOUT_MS = 5_000;
/** Largest answer read from the provider. */
const MAX_ANSWER_BYTES = 16_384;

/** The path of the bundled mock on this service (spec: MultifactorAuthenticationEndpoint default). */
export const MOCK_PATH = '/api/mfa';

/**
 * The one shipped provider. Protocol (ours; the spec does not show one):
 * `POST <MultifactorAuthenticationEndpoint>` with JSON `{ applicationId, clientKey, userName, passcode }`;
 * a 2xx answer `{ "valid": true }` accepts, any other 2xx body refuses, a non-2xx answer or no answer within
 * 5 seconds is "unavailable". The TLS options apply to this endpoint only.
 */
@Injectable()
export class HttpSecondFactorProvider extends SecondFactorProvider implements OnApplicationBootstrap {
  private readonly logger = new Logger('SecondFactor');
  private readonly trust: SecondFactorTrust;

  constructor(
    @Inject(SECOND_FACTOR_SETTINGS.token) private readonly settings: SecondFactorSettings,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    super();
    const pin = settings.OutboundHttpMfaAmCertificateThumbprint;
    const sha1 = pin === undefined ? null : parseThumbprint(pin);
    // Bypass disables validation entirely, so it wins over a pin (spec: Second factor 5).
    this.trust = settings.OutboundHttpMfaAmCertificateBypass
      ? { kind: 'bypass' }
      : sha1
        ? { kind: 'pin', sha1 }
        : { kind: 'verify' };
  }

  onApplicationBootstrap(): void {
    if (!this.settings.EnableMultifactorAuthentication) return;
    if (!this.settings.MultifactorAuthenticationEndpoint) {
      // spec: Second factor 4 says this "silently succeeds against the mock": we say it loudly instead.
      this.logger.warn(
        this.settings.MultifactorAuthenticationClientKey === SHIPPED_MFA_CLIENT_KEY
          ? `EnableMultifactorAuthentication is True but MultifactorAuthenticationEndpoint is unset: the second factor is checked by the bundled mock (${MOCK_PATH}), which accepts one fixed passcode for everybody. Point MultifactorAuthenticationEndpoint at a real provider.`
          : `EnableMultifactorAuthentication is True but MultifactorAuthenticationEndpoint is unset: the bundled mock (${MOCK_PATH}) refuses every passcode because MultifactorAuthenticationClientKey is not its shipped default, so nobody can complete sign-in.`,
      );
    }
  }

  /** The configured endpoint, or the bundled mock on the address this process listens on. */
  endpoint(): URL {
    const configured = this.settings.MultifactorAuthenticationEndpoint;
    if (configured) return new URL(configured);
    const server = this.adapterHost.httpAdapter?.getHttpServer() as http.Server | undefined;
    const address: AddressInfo | string | null | undefined = server?.address();
    const port = typeof address === 'object' && address ? address.port : this.settings.Port;
    const host =
      typeof address === 'object' && address && address.address !== '0.0.0.0' && address.address !== '::'
        ? address.address
        : '127.0.0.1';
    return new URL(`http://${host.includes(':') ? `[${host}]` : host}:${port}${MOCK_PATH}`);
  }

  async verify(userName: string, passcode: string): Promise<boolean> {
    const url = this.endpoint();
    const body = JSON.stringify({
      applicationId: this.settings.MultifactorAuthenticationApplicationId,
      clientKey: this.settings.MultifactorAuthenticationClientKey,
      userName,
      passcode,
    });
    const { status, text } = await this.post(url, body);
    if (status < 200 || status > 299) throw new SecondFactorUnavailable(`provider answered ${status}`);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      throw new SecondFactorUnavailable('provider answer is not JSON');
    }
    return typeof answer === 'object' && answer !== null && (answer as { valid?: unknown }).valid === true;
  }

  private post(url: URL, body: string): Promise<{ status: number; text: string }> {
    const https = url.protocol === 'https:';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = Number(url.port || (https ? 443 : 80));
    const headers: http.OutgoingHttpHeaders = {
      'content-type': 'application/json',
      accept: 'application/json',
      'content-length': Buffer.byteLength(body),
    };
    if (url.username || url.password) {
      headers.authorization = `Basic ${Buffer.from(
        `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`,
      ).toString('base64')}`;
    }
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (err: Error | null, value?: { status: number; text: string }) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        if (err) {
          req.destroy();
          // Only a short reason: never the URL (it may carry credentials) nor the request body.
          reject(err instanceof SecondFactorUnavailable ? err : new SecondFactorUnavailable(reasonOf(err)));
        } else resolve(value!);
      };
      const req = http.request(
        {
          method: 'POST',
          host,
          port,
          path: `${url.pathname}${url.search}`,
          headers,
          // https: no agent, so createConnection opens the (verified) connection; http: a fresh agent, no reuse.
          ...(https
            ? {
                createConnection: (
                  _options: http.ClientRequestArgs,
                  oncreate: (err: Error | null, socket: Duplex) => void,
                ) => {
                  connectVerified(host, port, this.trust, (err, socket) => {
                    // Node reads only the error when there is one.
                    if (err || !socket) oncreate(err ?? new Error('no connection'), undefined as never);
                    else oncreate(null, socket);
                  });
                  return undefined;
                },
              }
            : { agent: false }),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) finish(new SecondFactorUnavailable('provider answer too large'));
            else chunks.push(chunk);
          });
          res.on('end', () =>
            finish(null, { status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', (err) => finish(err));
        },
      );
      const timer = setTimeout(
        () => finish(new SecondFactorUnavailable('provider did not answer in time')),
        SECOND_FACTOR_TIMEOUT_MS,
      );
      req.on('error', (err) => finish(err));
      req.end(body);
    });
  }
}

function reasonOf(err: Error): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code ? `provider unreachable (${code})` : `provider unreachable (${err.message})`;
}

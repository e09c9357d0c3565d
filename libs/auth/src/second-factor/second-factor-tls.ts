import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import tls from 'node:tls';

/**
 * How the second-factor endpoint's certificate is trusted (spec: Second factor 5; these options apply to
 * this endpoint only).
 * - verify: the platform's ordinary chain and host-name checks.
 * - bypass (OutboundHttpMfaAmCertificateBypass): no certificate validation at all.
 * - pin (OutboundHttpMfaAmCertificateThumbprint): the leaf's SHA-1 fingerprint must equal the pin; chain-trust
 *   errors (self-signed, unknown issuer) are tolerated, every other certificate error (expired, not yet
 *   valid, host name mismatch) is not.
 */
export type SecondFactorTrust = { kind: 'verify' } | { kind: 'bypass' } | { kind: 'pin'; sha1: Buffer };

/** OpenSSL verification codes that only say "this chain does not lead to a trusted root". */
const CHAIN_TRUST_ERRORS = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_UNTRUSTED',
]);

/** A thumbprint as typed ("AB:CD:..." or "abcd...") as 20 bytes; null when it is not 40 hex digits. */
export function parseThumbprint(text: string): Buffer | null {
  const hex = text.replace(/:/g, '');
  return /^[0-9a-f]{40}$/i.test(hex) ? Buffer.from(hex, 'hex') : null;
}

/** Why the connected peer is refused under `trust`, or null when it is accepted. */
export function refusal(socket: tls.TLSSocket, host: string, trust: SecondFactorTrust): string | null {
  switch (trust.kind) {
    case 'bypass':
      return null;
    case 'verify':
      // rejectUnauthorized is on: an unauthorised peer never gets here, but say so rather than assume it.
      return socket.authorized ? null : 'certificate not trusted';
    case 'pin': {
      const cert = socket.getPeerCertificate();
      if (!cert || !cert.fingerprint) return 'no peer certificate';
      const error = socket.authorizationError as unknown as string | Error | null;
      const code = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : error;
      if (!socket.authorized && (code === null || !CHAIN_TRUST_ERRORS.has(code)))
        return `certificate refused (${code ?? 'unknown'})`;
      // OpenSSL may report only the chain error of a self-signed certificate and not its dates: check them.
      const now = Date.now();
      if (!(Date.parse(cert.valid_from) <= now && now <= Date.parse(cert.valid_to)))
        return 'certificate expired or not yet valid';
      // Node runs its host-name check only after a chain verified: run it here whatever the chain said.
      if (tls.checkServerIdentity(host, cert) !== undefined) return 'certificate does not name the host';
      const actual = parseThumbprint(cert.fingerprint);
      if (!actual || !timingSafeEqual(actual, trust.sha1)) return 'certificate thumbprint does not match';
      return null;
    }
  }
}

/**
 * Opens a TLS connection and hands it to the HTTP client only once `refusal` accepted the peer, so not one
 * byte of the request (which carries the client key) is written to a refused peer.
 */
export function connectVerified(
  host: string,
  port: number,
  trust: SecondFactorTrust,
  done: (err: Error | null, socket?: tls.TLSSocket) => void,
): void {
  const socket = tls.connect({
    host,
    port,
    servername: isIP(host) ? undefined : host,
    rejectUnauthorized: trust.kind === 'verify',
    ALPNProtocols: ['http/1.1'],
  });
  let settled = false;
  const settle = (err: Error | null) => {
    if (settled) return;
    settled = true;
    if (err) {
      socket.destroy();
      done(err);
    } else done(null, socket);
  };
  socket.once('secureConnect', () => {
    const why = refusal(socket, host, trust);
    settle(why === null ? null : new Error(why));
  });
  socket.once('error', (err: Error) => settle(err));
  socket.once('close', () => settle(new Error('connection closed during the TLS handshake')));
}

import { HttpStatus, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { resolve } from 'node:path';
import { NEGOTIATE_SETTINGS, type NegotiateSettings } from '@app/config';
import { ClientContext } from '@app/http-edge';
import { ProblemException } from '@app/problems';
import { AuthenticationType, FailureType, LoginRecorder } from '@app/audit';
import { AuthProblems, AuthProblemType } from './auth-problems';
import { SignInOutcome, SignInService } from './sign-in.service';
import { KerberosAddOn, loadKerberos } from './kerberos-add-on';

export const NEGOTIATE_SCHEME = 'Negotiate';
const SCHEME = NEGOTIATE_SCHEME;
/** base64 of a SPNEGO / Kerberos token; Node refuses request headers beyond 16 KiB anyway. */
const TOKEN = /^[A-Za-z0-9+/]+={0,2}$/;
const MAX_TOKEN_LENGTH = 16_384;

/** What the Kerberos handshake proved, or why it could not complete. */
export type Handshake =
  | { kind: 'absent' }
  | { kind: 'failed'; reason: string }
  | { kind: 'established'; principal: string; responseToken: string | null };

export type EstablishedHandshake = Extract<Handshake, { kind: 'established' }>;

/**
 * Negotiate sign-in (spec: Identity schemes, Negotiate; RFC 4559): GET api/Authentication/ByNegotiate with
 * `Authorization: Negotiate <token>`. The GSS acceptor of the `kerberos` add-on (MIT Kerberos, libuv
 * thread pool) checks the token against the service keytab (`accept`, run by NegotiateStrategy); the
 * principal it proves is mapped to a UserRegistry user and SignInService completes the sign-in as for any
 * scheme.
 */
@Injectable()
export class NegotiateService implements OnModuleInit {
  private readonly log = new Logger('Negotiate');
  private kerberos: KerberosAddOn | null = null;

  constructor(
    @Inject(NEGOTIATE_SETTINGS.token) private readonly settings: NegotiateSettings,
    private readonly signInService: SignInService,
    private readonly logins: LoginRecorder,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.settings.NegotiateAuthentication) return;
    // The GSS library takes its keytab only from the environment (getenv at each acceptor call).
    if (this.settings.NegotiateKeytab)
      process.env.KRB5_KTNAME = `FILE:${resolve(this.settings.NegotiateKeytab)}`;
    // Refuse to start rather than answer every sign-in with a failure.
    this.kerberos = await loadKerberos();
  }

  /** 404 while NegotiateAuthentication is False, like every disabled sign-in route. */
  ensureEnabled(): void {
    if (!this.settings.NegotiateAuthentication) throw AuthProblems.disabled();
  }

  /**
   * What the handshake (NegotiateStrategy) came to: no token is the first leg of the protocol (401 with the
   * challenge, no row); a failed handshake is an attempt with no identity (spec: UserLogin rule 1: one row,
   * FailureTypeId 1); a proven principal signs in (or gets the second factor's 202).
   */
  async signIn(handshake: Handshake, client: ClientContext): Promise<SignInOutcome> {
    this.ensureEnabled();
    if (handshake.kind === 'absent') throw negotiateRequired();
    if (handshake.kind === 'failed') {
      this.log.warn(`Negotiate handshake failed: ${handshake.reason}`);
      await this.logins.record(client, {
        userName: '',
        tenantId: null,
        authenticationType: AuthenticationType.Negotiate,
        failureType: FailureType.UnknownUser,
      });
      throw negotiateRequired();
    }
    const userName = this.userNameOf(handshake.principal);
    return this.signInService.signInEstablished(
      {
        userName: userName ?? '',
        recordedName: handshake.principal,
        authenticationType: AuthenticationType.Negotiate,
      },
      client,
      negotiateRequired,
    );
  }

  /** Runs the GSS acceptor on the request's token. Never throws: every failure is a `failed` handshake. */
  async accept(authorization: string | undefined): Promise<Handshake> {
    if (authorization === undefined) return { kind: 'absent' };
    const space = authorization.indexOf(' ');
    const scheme = space < 0 ? authorization : authorization.slice(0, space);
    const token = space < 0 ? '' : authorization.slice(space + 1).trim();
    if (scheme.toLowerCase() !== SCHEME.toLowerCase()) return { kind: 'absent' };
    if (!token || token.length > MAX_TOKEN_LENGTH || !TOKEN.test(token))
      return { kind: 'failed', reason: 'the Authorization header carries no base64 token' };
    try {
      this.kerberos ??= await loadKerberos();
      const server = await this.kerberos.initializeServer(this.settings.NegotiateServicePrincipal ?? '');
      await server.step(token);
      if (!server.contextComplete || !server.username)
        return { kind: 'failed', reason: 'the security context did not complete in one step' };
      return { kind: 'established', principal: server.username, responseToken: server.response || null };
    } catch (e) {
      // GSS major/minor messages (no key material), for the operator only, never in the response.
      // (The add-on's errors may come from another realm than this module's Error: read the message.)
      const message = typeof e === 'object' && e !== null && 'message' in e ? e.message : e;
      return { kind: 'failed', reason: String(message) };
    }
  }

  /**
   * `user@REALM` → `user`, looked up case-insensitively like a typed user name. With NegotiateRealm set, a
   * principal of another realm maps to nobody (FailureTypeId 1).
   */
  private userNameOf(principal: string): string | null {
    const at = principal.lastIndexOf('@');
    const name = at < 0 ? principal : principal.slice(0, at);
    const realm = at < 0 ? '' : principal.slice(at + 1);
    if (this.settings.NegotiateRealm !== undefined && realm !== this.settings.NegotiateRealm) return null;
    return name || null;
  }
}

/** Every 401 of ByNegotiate: one body, and the challenge that lets a browser (re)try with a token. */
function negotiateRequired(): ProblemException {
  return new ProblemException(
    HttpStatus.UNAUTHORIZED,
    'Negotiate authentication required',
    'Negotiate (Kerberos) sign-in did not complete for this caller.',
    AuthProblemType.negotiate,
    {},
    { 'WWW-Authenticate': SCHEME },
  );
}

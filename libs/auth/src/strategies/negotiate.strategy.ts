import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { HttpRequestLike } from '@app/http-edge';
import { Strategy as CustomStrategy } from 'passport-custom';
import { EstablishedHandshake, Handshake, NegotiateService } from '../negotiate.service';
import type { StrategyOutcome } from './app-passport';

export const NEGOTIATE_STRATEGY = 'negotiate';

/**
 * Negotiate (RFC 4559: `Authorization: Negotiate <token>` in one step) through passport-custom, the Passport
 * strategy whose `validate` receives the request: the `kerberos` add-on's GSS acceptor checks the token. Success
 * carries the proven principal (and the acceptor's answer token); a missing token or a failed handshake is a
 * `fail` whose challenge is the Handshake, so the sign-in can tell the protocol's first leg (no row) from a failed
 * attempt (a row). Run by AuthenticationController.byNegotiate.
 */
@Injectable()
export class NegotiateStrategy extends PassportStrategy(CustomStrategy, NEGOTIATE_STRATEGY) {
  constructor(private readonly negotiate: NegotiateService) {
    super();
  }

  /** `[false, handshake]`: @nestjs/passport hands both to passport-custom, which fails with the handshake. */
  async validate(req: HttpRequestLike): Promise<EstablishedHandshake | [false, Handshake]> {
    const handshake = await this.negotiate.accept(req.headers.authorization);
    return handshake.kind === 'established' ? handshake : [false, handshake];
  }
}

/** The Handshake a Negotiate strategy outcome stands for. */
export function handshakeOf(outcome: StrategyOutcome<EstablishedHandshake>): Handshake {
  if (outcome.kind === 'success') return outcome.user;
  if (outcome.kind === 'fail' && typeof outcome.challenge === 'object' && outcome.challenge !== null)
    return outcome.challenge as Handshake;
  return { kind: 'absent' };
}

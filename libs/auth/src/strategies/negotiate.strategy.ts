import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-strategy';
import type { HttpRequestLike } from '@app/http-edge';
import { EstablishedHandshake, Handshake, NegotiateService } from '../negotiate.service';
import type { StrategyOutcome } from './app-passport';

export const NEGOTIATE_STRATEGY = 'negotiate';

type Verify = (
  handshake: EstablishedHandshake,
  done: (err: unknown, user?: EstablishedHandshake | false) => void,
) => void;

/**
 * A small Passport strategy around a GSS acceptor (RFC 4559): `Authorization: Negotiate <token>` in one
 * step. Success carries the proven principal (and the acceptor's answer token); a missing token or a failed
 * handshake is a `fail` whose challenge is the Handshake, so the sign-in can tell the protocol's first leg
 * (no row) from a failed attempt (a row).
 */
export class GssNegotiateStrategy extends Strategy {
  name = NEGOTIATE_STRATEGY;

  constructor(
    private readonly acceptor: { accept(authorization: string | undefined): Promise<Handshake> },
    private readonly verify: Verify,
  ) {
    super();
  }

  override authenticate(req: HttpRequestLike): void {
    this.acceptor.accept(req.headers.authorization).then(
      (handshake) => {
        if (handshake.kind !== 'established') return this.fail(handshake, 401);
        this.verify(handshake, (err, user) => {
          if (err) this.error(err as Error);
          else if (!user) this.fail(handshake, 401);
          else this.success(user);
        });
      },
      (err: unknown) => this.error(err as Error),
    );
  }
}

/** Negotiate (Kerberos through the `kerberos` add-on's acceptor), run by AuthenticationController.byNegotiate. */
@Injectable()
export class NegotiateStrategy extends PassportStrategy(GssNegotiateStrategy, NEGOTIATE_STRATEGY) {
  constructor(negotiate: NegotiateService) {
    super({ accept: (authorization: string | undefined) => negotiate.accept(authorization) });
  }

  validate(handshake: EstablishedHandshake): EstablishedHandshake {
    return handshake;
  }
}

/** The Handshake a Negotiate strategy outcome stands for. */
export function handshakeOf(outcome: StrategyOutcome<EstablishedHandshake>): Handshake {
  if (outcome.kind === 'success') return outcome.user;
  if (outcome.kind === 'fail' && typeof outcome.challenge === 'object' && outcome.challenge !== null)
    return outcome.challenge as Handshake;
  return { kind: 'absent' };
}

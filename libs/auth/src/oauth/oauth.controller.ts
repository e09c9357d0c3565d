import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import type * as oidc from 'openid-client';
import { FailureType } from '@app/audit';
import { clientContextOf } from '@app/http-edge';
import { Public } from '@app/access';
import { RawInput } from '@app/input-rules';
import { ownOrigin } from '../csrf';
import { writeCookies } from '../http/session-response';
import { AppPassport } from '../strategies/app-passport';
import { OIDC_SESSION_KEY, OIDC_STRATEGY, OidcRunOptions, OidcStrategy } from '../strategies/oidc.strategy';
import { OAUTH_CALLBACK_BODY_LIMIT } from './oauth-paths';
import {
  OAUTH_SCOPE,
  OAuthAnswer,
  OAuthFailure,
  OAuthSignInService,
  OidcOutcome,
} from './oauth-sign-in.service';
import {
  OAUTH_TRANSACTION_COOKIE,
  type StrategyState,
  strategyStateOf,
  transactionSession,
  transactionWith,
} from './oauth-transaction';

const noStore = (res: Response) => res.setHeader('Cache-Control', 'no-store');

const cookies = (req: Request) => (req.cookies ?? {}) as Record<string, unknown>;

/** The strategy keeps its transaction in `req.session`; only these routes have one (oauth-transaction.ts). */
const withSession = (req: Request, session: Record<string, unknown>) => Object.assign(req, { session });

/**
 * openid-client reads the form_post body itself (the route is left out of the body parsers): only a form
 * whose declared length is within the form body limit is read. Anything else is this browser's (or a
 * forger's) doing, refused before the strategy (FailureTypeId 9), never a provider failure.
 */
function checkCallbackBody(req: Request): void {
  if (req.method !== 'POST') return;
  const length = Number(req.headers['content-length'] ?? Number.NaN);
  if (req.headers['transfer-encoding'] !== undefined || !(length <= OAUTH_CALLBACK_BODY_LIMIT))
    throw new OAuthFailure(
      FailureType.OAuthLocalValidationFailure,
      `The callback's form body must declare its length, at most ${OAUTH_CALLBACK_BODY_LIMIT} bytes.`,
    );
  if (!req.is('application/x-www-form-urlencoded'))
    throw new OAuthFailure(
      FailureType.OAuthLocalValidationFailure,
      'The callback must be a form (application/x-www-form-urlencoded).',
    );
}

/**
 * OpenID Connect sign-in (spec: OAuth / OpenID Connect), run by openid-client's Passport strategy
 * (OidcStrategy) through AppPassport. Anonymous: these routes create the credential (spec: Credentials and
 * precedence 2), so neither the credential guard nor its CSRF check runs; the callback is bound to the
 * browser that started the sign-in by the state in the transaction cookie. All three answer 404 unless
 * OAuthAuthentication is True.
 */
@ApiTags('Authentication')
@RawInput()
@Controller('api/Authentication/OAuth')
export class OAuthController {
  /** The Configuration the registered strategy was built on (discovery may be redone after a failure). */
  private registeredFor: oidc.Configuration | undefined;

  constructor(
    private readonly oauth: OAuthSignInService,
    private readonly passport: AppPassport,
  ) {}

  /** 302 to the provider's authorization endpoint; `returnUrl` must be a local path (else `/`). */
  @Get('Login')
  @Public()
  @ApiExcludeEndpoint()
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.oauth.ensureEnabled();
    noStore(res);
    const pending = this.oauth.pendingTransaction(
      ownOrigin(req) ?? `${req.protocol}://127.0.0.1`,
      req.query.returnUrl,
    );
    const seal = (state: StrategyState) =>
      writeCookies(res, [this.oauth.transactionSet(transactionWith(pending, state), req.secure)]);
    try {
      await this.registerStrategy();
      withSession(
        req,
        transactionSession(OIDC_SESSION_KEY, () => undefined, seal),
      );
      const options: OidcRunOptions = { callbackURL: pending.redirectUri, initiate: true };
      const run = await this.passport.run(OIDC_STRATEGY, req, res, { strategy: options, mayRedirect: true });
      if (run.kind === 'answered') return;
      throw new Error(`The OpenID Connect strategy ended its authorization request with ${run.kind}.`);
    } catch (error) {
      // The provider cannot be reached or is misconfigured: this attempt fails here (one row, type 8).
      this.redirect(res, 302, await this.oauth.finish({ kind: 'error', error }, clientContextOf(req)));
    }
  }

  /** form_post callback (the default response mode). */
  @Post('Callback')
  @Public()
  @ApiExcludeEndpoint()
  async callbackPost(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.callback(req, res);
  }

  /** Query-string callback (OAuthForceGet). */
  @Get('Callback')
  @Public()
  @ApiExcludeEndpoint()
  async callbackGet(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.callback(req, res);
  }

  private async callback(req: Request, res: Response): Promise<void> {
    this.oauth.ensureEnabled();
    // Single use: whatever happens, this transaction is over.
    writeCookies(res, [this.oauth.transactionCleared(req.secure)]);
    const tx = this.oauth.openTransaction(cookies(req)[OAUTH_TRANSACTION_COOKIE]);
    let outcome: OidcOutcome;
    try {
      this.oauth.checkResponseMode(req.method);
      checkCallbackBody(req);
      await this.registerStrategy();
      // The callback never writes a transaction: the strategy only reads (and deletes) its state.
      withSession(
        req,
        transactionSession(
          OIDC_SESSION_KEY,
          () => strategyStateOf(tx),
          () => undefined,
        ),
      );
      const options: Partial<OidcRunOptions> = { callbackURL: tx?.redirectUri, initiate: false };
      const run = await this.passport.run<string>(OIDC_STRATEGY, req, res, { strategy: options });
      outcome =
        run.kind === 'success' && tx
          ? { kind: 'success', user: { userName: run.user, returnUrl: tx.returnUrl } }
          : { kind: 'fail', challenge: run.kind === 'fail' ? run.challenge : undefined };
    } catch (error) {
      outcome = { kind: 'error', error };
    }
    // 303: the browser follows a form_post callback with a GET.
    this.redirect(res, 303, await this.oauth.finish(outcome, clientContextOf(req)));
  }

  private redirect(res: Response, status: 302 | 303, answer: OAuthAnswer): void {
    writeCookies(res, answer.cookies);
    noStore(res);
    res.redirect(status, answer.location);
  }

  /**
   * The strategy needs the provider's Configuration, which discovery gives (OAuthSignInService.configuration:
   * type 8 when the provider cannot be used); it is built and registered once per Configuration.
   */
  private async registerStrategy(): Promise<void> {
    const config = await this.oauth.configuration();
    if (this.registeredFor === config) return;
    const strategy = new OidcStrategy(config, OAUTH_SCOPE, this.oauth.responseMode, (claims) =>
      this.oauth.identityOf(claims),
    );
    this.passport.use(OIDC_STRATEGY, strategy);
    this.registeredFor = config;
  }
}

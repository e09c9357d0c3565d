import { Controller, Get, Inject, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { OAUTH_SETTINGS, type OAuthSettings } from '@app/config';
import { clientContextOf, Public, RawInput } from '@app/common';
import { ownOrigin } from '../csrf';
import { writeCookies } from '../http/session-response';
import { AppPassport } from '../strategies/app-passport';
import { OIDC_STRATEGY, OidcStrategy } from '../strategies/oidc.strategy';
import { OAuthSignInService, OidcIdentity, OidcOutcome } from './oauth-sign-in.service';

const noStore = (res: Response) => res.setHeader('Cache-Control', 'no-store');

/**
 * OpenID Connect sign-in (spec: OAuth / OpenID Connect). Anonymous: these routes create the credential
 * (spec: Credentials and precedence 2), so neither the credential guard nor its CSRF check runs; the
 * callback is bound to the browser that started the sign-in by the state in the transaction cookie.
 * All three answer 404 unless OAuthAuthentication is True.
 */
@ApiTags('Authentication')
@RawInput()
@Controller('api/Authentication/OAuth')
export class OAuthController {
  constructor(
    private readonly oauth: OAuthSignInService,
    strategy: OidcStrategy,
    private readonly passport: AppPassport,
    @Inject(OAUTH_SETTINGS.token) private readonly settings: OAuthSettings,
  ) {
    passport.use(OIDC_STRATEGY, strategy);
  }

  /** 302 to the provider's authorization endpoint; `returnUrl` must be a local path (else `/`). */
  @Get('Login')
  @Public()
  @ApiExcludeEndpoint()
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.oauth.ensureEnabled();
    const answer = await this.oauth.begin({
      origin: ownOrigin(req) ?? `${req.protocol}://127.0.0.1`,
      returnUrl: req.query.returnUrl,
      client: clientContextOf(req),
    });
    writeCookies(res, answer.cookies);
    noStore(res);
    res.redirect(302, answer.location);
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
    let outcome: OidcOutcome;
    try {
      const run = await this.passport.run<OidcIdentity>(OIDC_STRATEGY, req, res);
      outcome = run.kind === 'success' ? run : { kind: 'fail' };
    } catch (error) {
      outcome = { kind: 'error', error };
    }
    const answer = await this.oauth.finish(outcome, clientContextOf(req));
    writeCookies(res, answer.cookies);
    noStore(res);
    // 303: the browser follows a form_post callback with a GET.
    res.redirect(303, answer.location);
  }
}

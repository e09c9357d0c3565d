import { Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public, RawInput } from '@app/common';
import { OAuthSignInService } from './oauth-sign-in.service';

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
  constructor(private readonly oauth: OAuthSignInService) {}

  /** 302 to the provider's authorization endpoint; `returnUrl` must be a local path (else `/`). */
  @Get('Login')
  @Public()
  @ApiExcludeEndpoint()
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    const target = await this.oauth.begin(req, res, req.query.returnUrl);
    noStore(res);
    res.redirect(302, target);
  }

  /** form_post callback (the default response mode). */
  @Post('Callback')
  @Public()
  @ApiExcludeEndpoint()
  async callbackPost(@Req() req: Request, @Res() res: Response): Promise<void> {
    const body: unknown = req.body;
    await this.callback(
      req,
      res,
      typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {},
    );
  }

  /** Query-string callback (OAuthForceGet). */
  @Get('Callback')
  @Public()
  @ApiExcludeEndpoint()
  async callbackGet(@Req() req: Request, @Res() res: Response): Promise<void> {
    await this.callback(req, res, req.query);
  }

  private async callback(req: Request, res: Response, params: Record<string, unknown>): Promise<void> {
    const target = await this.oauth.complete(req, res, params);
    noStore(res);
    // 303: the browser follows a form_post callback with a GET.
    res.redirect(303, target);
  }
}

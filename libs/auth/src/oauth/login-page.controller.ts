import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public, RawInput } from '@app/common';
import { localReturnUrl } from './local-return-url';
import { OAUTH_LOGIN_PATH, OAuthSignInService } from './oauth-sign-in.service';

/** The page's own policy: no script, no style, no form, no frame; only a link. */
export const LOGIN_PAGE_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const FAILED_PAGE = (again: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in failed</title>
</head>
<body>
<main>
<h1>Sign-in failed</h1>
<p id="failed" role="alert">Sign-in did not complete: the identity provider refused it, or your account does not exist here or is not active. If this persists, please ask an administrator.</p>
<p><a id="again" href="${again}">Try again</a></p>
</main>
</body>
</html>
`;

/**
 * GET /Account/Login. spec: OAuth / OpenID Connect 2 — under OAuthAuthentication the Login page redirects
 * directly to the identity provider (keeping a local returnUrl). After a failed sign-in (`failed=1`, where
 * the callback sends the browser) it shows a message and a link instead, so a provider that signs the
 * browser in at once cannot loop. Without OAuth this service has no login page of its own: 404.
 */
@ApiExcludeController()
@RawInput()
@Controller('Account')
export class LoginPageController {
  constructor(private readonly oauth: OAuthSignInService) {}

  @Get('Login')
  @Public()
  login(
    @Query('returnUrl') returnUrl: unknown,
    @Query('failed') failed: unknown,
    @Res() res: Response,
  ): void {
    this.oauth.ensureEnabled();
    res.setHeader('Cache-Control', 'no-store');
    const local = localReturnUrl(returnUrl);
    const target =
      local === '/' ? OAUTH_LOGIN_PATH : `${OAUTH_LOGIN_PATH}?returnUrl=${encodeURIComponent(local)}`;
    if (failed === undefined) {
      res.redirect(302, target);
      return;
    }
    res.setHeader('Content-Security-Policy', LOGIN_PAGE_CSP);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    // `target` is our own path with an encodeURIComponent'd value: nothing in it can leave the attribute.
    res.status(200).send(FAILED_PAGE(target.replace(/&/g, '&amp;')));
  }
}

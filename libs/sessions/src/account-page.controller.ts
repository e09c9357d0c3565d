import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@app/common';

/**
 * The page's own policy: nothing but this origin's script and requests; no inline script or style, no
 * frames, no forms, no base rewrite. It replaces helmet's default policy on these two responses.
 */
export const ACCOUNT_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const LOGOUT_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Log out</title>
<script src="Logout.js" defer></script>
</head>
<body>
<main>
<h1>Log out</h1>
<section id="confirm">
<p>Do you want to log out? Every session of your account will end, on every device.</p>
<button id="logout" type="button">Log out</button>
</section>
<p id="done" role="status" hidden>You are logged out.</p>
<p id="warning" role="alert" hidden>Your browser is logged out, but the service could not confirm that your other sessions ended. Please tell an administrator.</p>
<p id="error" role="alert" hidden>The service could not be reached. Please try again.</p>
<noscript><p>This page needs JavaScript to log you out.</p></noscript>
</main>
</body>
</html>
`;

/** Relative URL, so the page also works under a path prefix (it is served at /Account/Logout). */
const LOGOUT_SCRIPT = `'use strict';
(function () {
  var button = document.getElementById('logout');
  function show(id) { document.getElementById(id).hidden = false; }
  button.addEventListener('click', function () {
    button.disabled = true;
    document.getElementById('error').hidden = true;
    fetch('../api/Authentication/Logout', { method: 'POST', credentials: 'same-origin', cache: 'no-store' })
      .then(function (res) {
        if (res.status !== 200) throw new Error('status ' + res.status);
        document.getElementById('confirm').hidden = true;
        show('done');
        if (res.headers.get('X-Service-Logout-Warning') === 'revocation-failed') show('warning');
      })
      .catch(function () {
        button.disabled = false;
        show('error');
      });
  });
})();
`;

/**
 * spec: Authentication endpoints, GET /Account/Logout — a confirmation button that calls POST
 * /api/Authentication/Logout same-origin, then a logged-out message. A GET never logs anyone out.
 */
@ApiExcludeController()
@Controller('Account')
export class AccountPageController {
  @Get('Logout')
  @Public()
  logoutPage(@Res() res: Response): void {
    this.send(res, 'text/html; charset=utf-8', LOGOUT_PAGE);
  }

  @Get('Logout.js')
  @Public()
  logoutScript(@Res() res: Response): void {
    this.send(res, 'text/javascript; charset=utf-8', LOGOUT_SCRIPT);
  }

  private send(res: Response, type: string, body: string): void {
    res.setHeader('Content-Security-Policy', ACCOUNT_PAGE_CSP);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', type);
    res.status(200).send(body);
  }
}

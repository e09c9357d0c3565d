import { Controller, Get, HttpStatus, Inject, Param, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CONSOLE_SETTINGS, type ConsoleSettings } from '@app/config';
import { Authenticated, Public } from '@app/access';
import { GUID_PATTERN, ParseGuidPipe } from '@app/input-rules';
import { ProblemException, ProblemType } from '@app/problems';
import { BrowserChallengeFilter, isPageNavigation, oauthLoginLocation } from '@app/auth';
import { GRID_NAMES } from '@app/declarations';
import { ConsoleBuild } from './console-build';

/** The grids with an Administration page: every grid (apps/console pages/grids/declarations.ts). */
export const CONSOLE_GRID_PAGES = GRID_NAMES;

/**
 * The signed-in console's pages (apps/console routes.tsx), beside `/` and `/Security/Users/{guid}`. Any
 * signed-in user gets the page: what it shows comes from the API, which answers 403 to a user who may not
 * read it (the page then says "not permitted").
 */
export const CONSOLE_PAGES = [
  ...CONSOLE_GRID_PAGES.map((grid) => `Administration/${grid}`),
  'Security/Users',
  'Security/Roles',
  'Security/Tenants',
];

/**
 * The console's pages (history fallback for console routes only): each answers the single-page
 * application's index.html, which shows the page its path names. The scripts and styles are served by
 * ServeStaticModule under /assets only, so no API request ever pays a file lookup. Security headers (the
 * strict CSP) come from the global middleware.
 */
@ApiExcludeController()
@Controller()
export class ConsolePagesController {
  constructor(
    @Inject(CONSOLE_SETTINGS.token) private readonly settings: ConsoleSettings,
    private readonly build: ConsoleBuild,
  ) {}

  /**
   * spec: the Login page. Under OAuthAuthentication the browser goes straight to the provider before any
   * script runs (spec: OAuth 2); after a failed callback (`failed=1`) the page says so instead, so a provider
   * that signs the browser in at once cannot loop.
   */
  @Get('Account/Login')
  @Public()
  login(
    @Query('returnUrl') returnUrl: unknown,
    @Query('failed') failed: unknown,
    @Res() res: Response,
  ): void {
    if (this.settings.OAuthAuthentication && failed === undefined) {
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(302, oauthLoginLocation(returnUrl));
      return;
    }
    this.page(res);
  }

  /** spec: GET /Account/Logout — a confirmation button; a GET never logs anyone out. */
  @Get('Account/Logout')
  @Public()
  logout(@Res() res: Response): void {
    this.page(res);
  }

  /** The console home; an anonymous browser is sent to the Login page, an API client gets the 401. */
  @Get()
  @Authenticated()
  @UseFilters(BrowserChallengeFilter)
  home(@Res() res: Response): void {
    this.page(res);
  }

  /** Administration (the grids) and Security pages; an anonymous browser is sent to the Login page. */
  @Get(CONSOLE_PAGES)
  @Authenticated()
  @UseFilters(BrowserChallengeFilter)
  signedInPage(@Res() res: Response): void {
    this.page(res);
  }

  /**
   * Security → Users → a user. A browser navigating to a path that names no user (`/Security/Users/New`
   * typed as an address) gets the console's Not Found page with status 404, never the JSON of a 400; any
   * other client keeps the 400 problem that names the parameter.
   */
  @Get('Security/Users/:guid')
  @Authenticated()
  @UseFilters(BrowserChallengeFilter)
  userPage(@Param('guid') guid: string, @Req() req: Request, @Res() res: Response): void {
    if (!GUID_PATTERN.test(guid)) {
      if (!isPageNavigation(req)) new ParseGuidPipe().transform(guid, { type: 'param', data: 'guid' });
      return this.page(res, HttpStatus.NOT_FOUND);
    }
    this.page(res);
  }

  private page(res: Response, status: number = HttpStatus.OK): void {
    if (this.build.indexHtml === null)
      throw new ProblemException(
        HttpStatus.SERVICE_UNAVAILABLE,
        'Service Unavailable',
        'The console has not been built. Run npm run build.',
        ProblemType.unavailable,
      );
    res.status(status).setHeader('Cache-Control', 'no-store');
    res.type('html').send(this.build.indexHtml);
  }
}

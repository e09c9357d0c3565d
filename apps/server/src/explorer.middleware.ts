import { dirname, join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';

/** Where the explorer lives; its page is `${EXPLORER_PATH}/index.html`, its document `${EXPLORER_PATH}/json`. */
export const EXPLORER_PATH = '/swagger';

/**
 * The files of swagger-ui-dist the page loads, and nothing else of the package (its own index.html and
 * initializer point at the public pet store).
 */
const ASSETS = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'swagger-ui-standalone-preset.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

/**
 * The page: every reference relative, so it works at /swagger/index.html and at /swagger/ alike (swagger-ui's
 * own page, as @nestjs/swagger serves it, resolved its assets to /swagger/swagger/… from index.html). No
 * inline script: the explorer's CSP keeps `script-src 'self'`.
 */
const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Decisioning operations service: API explorer</title>
    <link rel="stylesheet" href="./swagger-ui.css">
    <link rel="icon" type="image/png" href="./favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="./swagger-ui-bundle.js"></script>
    <script src="./swagger-ui-standalone-preset.js"></script>
    <script src="./explorer.js"></script>
  </body>
</html>
`;

/**
 * The explorer's settings. The document is this service's own (`./json`), with no box to load another one.
 * "Try it out" sends same-origin requests: a signed-in browser's HttpOnly session cookie travels with them
 * (and its CSRF origin check passes), or the API key / bearer token given under Authorize. Authorizations
 * are not kept in localStorage (persistAuthorization stays false).
 */
const EXPLORER_JS = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: './json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'BaseLayout',
    displayOperationId: true,
    persistAuthorization: false,
    withCredentials: true,
    tryItOutEnabled: false,
    validatorUrl: null,
  });
});
`;

function noCache(res: Response): void {
  // The page and its settings follow the deployed version; the package's files are revalidated too.
  res.setHeader('Cache-Control', 'no-cache');
}

/**
 * The API explorer's own pages (swagger-ui-dist): /swagger/index.html and /swagger/ (the same page), its
 * settings script and the package's assets. Mount it behind the credential check; the OpenAPI document
 * itself (/swagger/json, /swagger/yaml) is served by SwaggerModule.
 */
export function explorerRouter(): Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  const dist = dirname(require.resolve('swagger-ui-dist/package.json'));
  router.get(['/', '/index.html'], (_req: Request, res: Response) => {
    noCache(res);
    res.type('html').send(INDEX_HTML);
  });
  router.get('/explorer.js', (_req: Request, res: Response) => {
    noCache(res);
    res.type('application/javascript').send(EXPLORER_JS);
  });
  router.get('/:asset', (req: Request, res: Response, next: NextFunction) => {
    const asset = req.params.asset;
    if (typeof asset !== 'string' || !ASSETS.has(asset)) {
      next();
      return;
    }
    noCache(res);
    res.sendFile(join(dist, asset), { dotfiles: 'deny' }, (err?: Error) => (err ? next(err) : undefined));
  });
  return router;
}

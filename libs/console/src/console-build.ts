import { Injectable, Logger } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The project root: the nearest folder above this file holding package.json (source, dist/ or an image). */
function projectRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/**
 * Where `npm run build` puts the console (Vite's outDir, apps/console/vite.config.mts). Not under the
 * server's dist/, which `nest build` and `nest start --watch` delete and rebuild.
 */
export const CONSOLE_BUILD_DIRECTORY = join(projectRoot(__dirname), 'apps', 'console', 'dist');
/** The hashed scripts, styles and images of the console; the only static files the service serves. */
export const CONSOLE_ASSETS_PATH = '/assets';

/**
 * The console's page (index.html), read once at start. Every console route answers it; the single-page
 * application then shows the page the path names.
 */
@Injectable()
export class ConsoleBuild {
  readonly indexHtml: string | null;

  constructor() {
    const index = join(CONSOLE_BUILD_DIRECTORY, 'index.html');
    this.indexHtml = existsSync(index) ? readFileSync(index, 'utf8') : null;
    if (this.indexHtml === null)
      new Logger('Console').warn(
        `The console is not built (${index} is missing): its pages answer 503. Run npm run build.`,
      );
  }
}

import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Negotiator from 'negotiator';
import { CONSOLE_BUILD_DIRECTORY } from './console-build';

/** The encodings the build writes beside each asset (scripts/console.ts), in the order they are preferred. */
export const ASSET_ENCODINGS = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
] as const;
export type AssetCoding = (typeof ASSET_ENCODINGS)[number]['coding'];

/** Among codings of equal q-value, brotli first: it is the smaller (Chromium lists gzip first). */
const PREFERRED: string[] = ASSET_ENCODINGS.map((e) => e.coding);

/** What the console's assets are cached for: a year, immutable (their names hold their hash). */
export const ASSET_CACHE = { maxAge: '365d', immutable: true } as const;

/**
 * The console's scripts and styles precompressed at build (brotli and gzip beside each file), answered by
 * content negotiation (RFC 9110 §12.5.3, by `negotiator`, the negotiation `req.acceptsEncodings` runs, with
 * brotli preferred among equals) with `Vary: Accept-Encoding` and the same immutable caching as the files;
 * a client that accepts neither gets the file from express.static (ServeStaticModule) as before. Which
 * files have variants is read once at start, so a request costs no look-up on disk before the send.
 */
@Injectable()
export class PrecompressedAssetsMiddleware implements NestMiddleware {
  private readonly directory = join(CONSOLE_BUILD_DIRECTORY, 'assets');
  private readonly variants: ReadonlyMap<string, AssetCoding[]>;

  constructor() {
    const names = existsSync(this.directory) ? new Set(readdirSync(this.directory)) : new Set<string>();
    const variants = new Map<string, AssetCoding[]>();
    for (const name of names)
      for (const { coding, suffix } of ASSET_ENCODINGS)
        if (names.has(`${name}${suffix}`)) variants.set(name, [...(variants.get(name) ?? []), coding]);
    this.variants = variants;
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // The file name from the URL itself (req.path is relative to where Nest mounts the middleware).
    const name = fileName(req.originalUrl);
    const codings = name === null ? undefined : this.variants.get(name);
    if (!codings) return next();
    res.vary('Accept-Encoding');
    // undefined: none of them is acceptable, the file as it is (identity)
    const coding = new Negotiator(req).encoding(codings, { preferred: PREFERRED });
    if (coding === undefined) return next();
    const suffix = ASSET_ENCODINGS.find((e) => e.coding === coding)!.suffix;
    res.type(name!.slice(name!.lastIndexOf('.')));
    res.setHeader('Content-Encoding', coding);
    res.sendFile(join(this.directory, `${name!}${suffix}`), { ...ASSET_CACHE, dotfiles: 'ignore' }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  }
}

/** The asset's file name in /assets/<name>, decoded; null when the URL holds no readable one. */
function fileName(url: string): string | null {
  const path = url.split('?')[0];
  if (!path.startsWith('/assets/')) return null;
  try {
    return decodeURIComponent(path.slice('/assets/'.length));
  } catch {
    return null;
  }
}

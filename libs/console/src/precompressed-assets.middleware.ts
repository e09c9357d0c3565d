import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CONSOLE_BUILD_DIRECTORY } from './console-build';

/** The encodings the build writes beside each asset (scripts/console.ts), in the order they are preferred. */
export const ASSET_ENCODINGS = [
  { coding: 'br', suffix: '.br' },
  { coding: 'gzip', suffix: '.gz' },
] as const;
export type AssetCoding = (typeof ASSET_ENCODINGS)[number]['coding'];

/** What the console's assets are cached for: a year, immutable (their names hold their hash). */
export const ASSET_CACHE = { maxAge: '365d', immutable: true } as const;

/**
 * The encoding to answer with, from an Accept-Encoding header (RFC 9110 §12.5.3) and those available: the
 * one with the highest q-value, brotli first among equals (it is the smaller); `*` stands for any coding not
 * named; q=0 refuses. Null: the file as it is (identity).
 */
export function chooseEncoding(
  acceptEncoding: string | undefined,
  available: ReadonlySet<AssetCoding>,
): AssetCoding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const weight = params.map((p) => /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/.exec(p)).find(Boolean);
    q.set(name, weight ? Number(weight[1]) : 1);
  }
  let best: AssetCoding | null = null;
  let bestQ = 0;
  for (const { coding } of ASSET_ENCODINGS) {
    const weight = q.get(coding) ?? q.get('*') ?? 0;
    if (available.has(coding) && weight > bestQ) [best, bestQ] = [coding, weight];
  }
  return best;
}

/**
 * The console's scripts and styles precompressed at build (brotli and gzip beside each file), answered by
 * content negotiation with `Vary: Accept-Encoding` and the same immutable caching as the files themselves;
 * a client that accepts neither gets the file from express.static (ServeStaticModule) as before. Which
 * files have variants is read once at start, so a request costs no look-up on disk before the send.
 */
@Injectable()
export class PrecompressedAssetsMiddleware implements NestMiddleware {
  private readonly directory = join(CONSOLE_BUILD_DIRECTORY, 'assets');
  private readonly variants: ReadonlyMap<string, ReadonlySet<AssetCoding>>;

  constructor() {
    const names = existsSync(this.directory) ? new Set(readdirSync(this.directory)) : new Set<string>();
    const variants = new Map<string, Set<AssetCoding>>();
    for (const name of names)
      for (const { coding, suffix } of ASSET_ENCODINGS)
        if (names.has(`${name}${suffix}`)) variants.set(name, (variants.get(name) ?? new Set()).add(coding));
    this.variants = variants;
  }

  use(req: Request, res: Response, next: NextFunction): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // The file name from the URL itself (req.path is relative to where Nest mounts the middleware).
    const name = fileName(req.originalUrl);
    const codings = name === null ? undefined : this.variants.get(name);
    if (!codings) return next();
    res.vary('Accept-Encoding');
    const coding = chooseEncoding(req.get('accept-encoding'), codings);
    if (coding === null) return next();
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

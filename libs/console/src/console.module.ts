import {
  Module,
  RequestMethod,
  type MiddlewareConsumer,
  type NestModule,
  type OnModuleInit,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ServeStaticModule } from '@nestjs/serve-static';
import { join } from 'node:path';
import { CONSOLE_ASSETS_PATH, CONSOLE_BUILD_DIRECTORY, ConsoleBuild } from './console-build';
import { consoleNotFoundPage } from './console-not-found.middleware';
import { ConsolePagesController } from './console-pages.controller';
import { ASSET_CACHE, PrecompressedAssetsMiddleware } from './precompressed-assets.middleware';

/**
 * The operations console (apps/console), served by this process from its build output: the hashed assets
 * under /assets (immutable, cached for a year; brotli or gzip when the browser takes it), index.html for
 * the console's routes, and the console's Not Found page for a browser navigation to any other path.
 */
@Module({
  imports: [
    ServeStaticModule.forRoot({
      rootPath: join(CONSOLE_BUILD_DIRECTORY, 'assets'),
      serveRoot: CONSOLE_ASSETS_PATH,
      // No index.html fallback under /assets: a missing asset is the ordinary 404 problem.
      exclude: [`${CONSOLE_ASSETS_PATH}/{*path}`],
      serveStaticOptions: {
        index: false,
        redirect: false,
        fallthrough: true,
        dotfiles: 'ignore',
        ...ASSET_CACHE,
      },
    }),
  ],
  controllers: [ConsolePagesController],
  providers: [ConsoleBuild],
})
export class ConsoleModule implements NestModule, OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly build: ConsoleBuild,
  ) {}

  /** Nest mounts middleware before every route, so the encoded file is chosen before express.static runs. */
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(PrecompressedAssetsMiddleware)
      .forRoutes({ path: `${CONSOLE_ASSETS_PATH.slice(1)}/*path`, method: RequestMethod.ALL });
  }

  /**
   * After the routes and ServeStaticModule's layer (an imported module's hook runs first), before Nest's
   * not-found handler (mounted after every init hook).
   */
  onModuleInit(): void {
    // (No HTTP adapter in a bare application context: nothing to serve then.)
    this.adapterHost.httpAdapter?.use(consoleNotFoundPage(this.build));
  }
}

import { Module } from '@nestjs/common';
import { ServeStaticModule } from '@nestjs/serve-static';
import { join } from 'node:path';
import { CONSOLE_ASSETS_PATH, CONSOLE_BUILD_DIRECTORY, ConsoleBuild } from './console-build';
import { ConsolePagesController } from './console-pages.controller';

/**
 * The operations console (apps/console), served by this process from its build output: the hashed assets
 * under /assets (immutable, cached for a year), and index.html for the console's routes.
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
        immutable: true,
        maxAge: '365d',
      },
    }),
  ],
  controllers: [ConsolePagesController],
  providers: [ConsoleBuild],
})
export class ConsoleModule {}

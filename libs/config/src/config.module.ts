import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Settings } from './settings';

/** Injection token of the validated, frozen settings. */
export const SETTINGS = Symbol('Settings');

/**
 * Holds the settings validated once at start-up (apps/server/main.ts loads them before Nest starts, so a
 * bad value stops the process before anything opens).
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: SETTINGS, useValue: settings }],
      exports: [SETTINGS],
    };
  }
}

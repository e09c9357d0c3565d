import { DynamicModule, Global, Module } from '@nestjs/common';
import type { Settings } from './settings';
import { SETTINGS_SLICES, sliceValues } from './settings-slices';

/** Injection token of the validated, frozen settings. */
export const SETTINGS = Symbol('Settings');

/**
 * Holds the settings validated once at start-up (apps/server/main.ts loads them before Nest starts, so a
 * bad value stops the process before anything opens). Features inject their typed slice
 * (settings-slices.ts), never SETTINGS, which is left for the application's composition.
 */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: SETTINGS, useValue: settings },
        ...SETTINGS_SLICES.map((slice) => ({ provide: slice.token, useValue: sliceValues(settings, slice) })),
      ],
      exports: [SETTINGS, ...SETTINGS_SLICES.map((slice) => slice.token)],
    };
  }
}

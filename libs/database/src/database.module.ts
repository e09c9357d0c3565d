import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SETTINGS, Settings } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { MIGRATIONS } from './migrations';

/**
 * The relational database. Entities come from each feature's TypeOrmModule.forFeature (autoLoadEntities);
 * migrations run at start-up when RunMigrations is True.
 */
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [SETTINGS],
          useFactory: (settings: Settings) => ({
            ...dataSourceOptions(
              {
                provider: settings.DatabaseProvider,
                connectionString: settings.ConnectionString,
                dataDirectory: settings.DataDirectory,
              },
              [],
              MIGRATIONS,
            ),
            autoLoadEntities: true,
            migrationsRun: settings.RunMigrations,
            migrationsTransactionMode: 'each' as const,
            retryAttempts: 3,
            retryDelay: 1000,
          }),
        }),
      ],
    };
  }
}

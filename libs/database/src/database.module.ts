import { DynamicModule, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { DATABASE_SETTINGS, type DatabaseSettings } from '@app/config';
import { dataSourceOptions } from './data-source-options';
import { MIGRATIONS } from './migrations';
import { providerOf } from './portable-columns';
import { assertReadCommittedSnapshot } from './sql-server';

/** What the database itself must offer before the service starts on it (SQL Server: READ_COMMITTED_SNAPSHOT). */
@Injectable()
export class DatabaseStartupCheck implements OnModuleInit {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async onModuleInit(): Promise<void> {
    if (providerOf(this.dataSource.options.type) === 'mssql')
      await assertReadCommittedSnapshot((sql) => this.dataSource.query(sql));
  }
}

/**
 * The relational database. Entities come from each feature's TypeOrmModule.forFeature (autoLoadEntities);
 * migrations run at start-up when RunMigrations is True.
 */
@Module({})
export class DatabaseModule {
  static forRoot(): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [DatabaseStartupCheck],
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [DATABASE_SETTINGS.token],
          useFactory: (settings: DatabaseSettings) => ({
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

import { DynamicModule, Injectable, Module, OnModuleInit } from '@nestjs/common';
import { InjectDataSource, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { DATABASE_SETTINGS, type DatabaseSettings } from '@app/config';
import { DatabaseTarget, dataSourceOptions } from './data-source-options';
import { MIGRATIONS } from './migrations';
import { providerOf } from './portable-columns';
import { assertReadCommittedSnapshot } from './sql-server';
import { retryIdempotentSqlServerReads } from './sql-server-retry';
import { gateSqliteConnection } from './sqlite-gate';
import { SqliteCheckpoints } from './sqlite-checkpoints';

type TargetSettings = Pick<
  DatabaseSettings,
  | 'DatabaseProvider'
  | 'ConnectionString'
  | 'DataDirectory'
  | 'SqlServerRequestTimeoutMilliseconds'
  | 'SqlServerConnectionTimeoutMilliseconds'
  | 'SqlServerMigrationTimeoutMilliseconds'
>;

/**
 * The database the settings name. `forMigrations`: SQL Server statements may then run for
 * SqlServerMigrationTimeoutMilliseconds (an ALTER of a populated table rewrites it), not the request timeout.
 */
export function databaseTarget(settings: TargetSettings, forMigrations = false): DatabaseTarget {
  return {
    provider: settings.DatabaseProvider,
    connectionString: settings.ConnectionString,
    dataDirectory: settings.DataDirectory,
    sqlServerTimeouts: {
      requestMs: forMigrations
        ? settings.SqlServerMigrationTimeoutMilliseconds
        : settings.SqlServerRequestTimeoutMilliseconds,
      connectionMs: settings.SqlServerConnectionTimeoutMilliseconds,
    },
  };
}

/** The migration set on its own DataSource (SQL Server: with the migration timeout), then closed. */
export async function runMigrations(target: DatabaseTarget): Promise<string[]> {
  const ds = new DataSource({
    ...dataSourceOptions(target, [], MIGRATIONS),
    migrationsTransactionMode: 'each',
  });
  await ds.initialize();
  try {
    return (await ds.runMigrations()).map((m) => m.name);
  } finally {
    await ds.destroy();
  }
}

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
      providers: [DatabaseStartupCheck, SqliteCheckpoints],
      exports: [SqliteCheckpoints],
      imports: [
        TypeOrmModule.forRootAsync({
          inject: [DATABASE_SETTINGS.token],
          useFactory: async (settings: DatabaseSettings) => {
            // SQL Server migrates on a DataSource of its own, whose statements may run longer.
            const sqlServer = settings.DatabaseProvider === 'mssql';
            if (sqlServer && settings.RunMigrations) await runMigrations(databaseTarget(settings, true));
            return {
              ...dataSourceOptions(databaseTarget(settings), [], MIGRATIONS),
              autoLoadEntities: true,
              migrationsRun: settings.RunMigrations && !sqlServer,
              migrationsTransactionMode: 'each' as const,
              retryAttempts: 3,
              retryDelay: 1000,
            };
          },
          dataSourceFactory: async (options?: DataSourceOptions) => {
            if (!options) throw new Error('no database options');
            const ds = new DataSource(options);
            retryIdempotentSqlServerReads(ds);
            gateSqliteConnection(ds);
            return ds.initialize();
          },
        }),
      ],
    };
  }
}

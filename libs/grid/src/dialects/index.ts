import type { DatabaseProvider } from '@app/config';
import { MssqlDialect } from './mssql.dialect';
import { PostgresDialect } from './postgres.dialect';
import { SqliteDialect } from './sqlite.dialect';
import type { SqlDialect } from './sql-dialect';

export * from './sql-dialect';

export function dialectFor(provider: DatabaseProvider): SqlDialect {
  switch (provider) {
    case 'postgres':
      return new PostgresDialect();
    case 'sqlite':
      return new SqliteDialect();
    case 'mssql':
      return new MssqlDialect();
  }
}

import { Identity1763800000000 } from './1763800000000-identity';

/** The ONE migration set, in order, for SQLite, PostgreSQL and SQL Server. Append only. */
export const MIGRATIONS = [Identity1763800000000];

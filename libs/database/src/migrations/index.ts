import { Identity1763800000000 } from './1763800000000-identity';
import { Audit1763800001000 } from './1763800001000-audit';

/** The ONE migration set, in order, for SQLite, PostgreSQL and SQL Server. Append only. */
export const MIGRATIONS = [Identity1763800000000, Audit1763800001000];

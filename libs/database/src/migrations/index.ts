import { Identity1763800000000 } from './1763800000000-identity';
import { Engine1763800003000 } from './1763800003000-engine';

/** The ONE migration set, in order, for SQLite, PostgreSQL and SQL Server. Append only. */
export const MIGRATIONS = [Identity1763800000000, Engine1763800003000];

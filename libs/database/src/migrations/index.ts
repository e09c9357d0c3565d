import { Identity1763800000000 } from './1763800000000-identity';
import { CaptureQueues1763800002000 } from './1763800002000-capture-queues';

/** The ONE migration set, in order, for SQLite, PostgreSQL and SQL Server. Append only. */
export const MIGRATIONS = [Identity1763800000000, CaptureQueues1763800002000];

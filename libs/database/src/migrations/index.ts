import { Identity1763800000000 } from './1763800000000-identity';
import { Audit1763800001000 } from './1763800001000-audit';
import { CaptureQueues1763800002000 } from './1763800002000-capture-queues';
import { Engine1763800003000 } from './1763800003000-engine';
import { ApiKeys1763800004000 } from './1763800004000-api-keys';
import { CaptureBatch1763800005000 } from './1763800005000-capture-batch';
import { SqlServerBinaryKeys1763800006000 } from './1763800006000-sql-server-binary-keys';
import { Audit64BitIds1763800007000 } from './1763800007000-audit-64-bit-ids';
import { Engine64BitIds1763800008000 } from './1763800008000-engine-64-bit-ids';
import { RowVersions1763800009000 } from './1763800009000-row-versions';
import { AdminEvents1763800010000 } from './1763800010000-admin-events';
import { WarningBatchSize1763800011000 } from './1763800011000-warning-batch-size';
import { AdminEventAggregates1763800012000 } from './1763800012000-admin-event-aggregates';
import { PasswordLockExpiry1763800014000 } from './1763800014000-password-lock-expiry';
import { UserNameSkeletons1763800015000 } from './1763800015000-user-name-skeletons';
import { ArchiveRetention1763800016000 } from './1763800016000-archive-retention';
import { IdempotencyRecords1763800017000 } from './1763800017000-idempotency-records';

/** The ONE migration set, in order, for SQLite, PostgreSQL and SQL Server. Append only. */
export const MIGRATIONS = [
  Identity1763800000000,
  Audit1763800001000,
  CaptureQueues1763800002000,
  Engine1763800003000,
  ApiKeys1763800004000,
  CaptureBatch1763800005000,
  SqlServerBinaryKeys1763800006000,
  Audit64BitIds1763800007000,
  Engine64BitIds1763800008000,
  RowVersions1763800009000,
  AdminEvents1763800010000,
  WarningBatchSize1763800011000,
  AdminEventAggregates1763800012000,
  PasswordLockExpiry1763800014000,
  UserNameSkeletons1763800015000,
  ArchiveRetention1763800016000,
  IdempotencyRecords1763800017000,
];

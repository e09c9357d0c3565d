import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';
import { CAPTURE_LENGTHS as L } from '../capture-queue-id';

/**
 * The ledger of capture writes: each bulk insert writes one row here in its own transaction. When a write
 * fails without saying whether it committed (the connection dropped around COMMIT), the retry first looks its
 * BatchGuid up: found means the rows are in, so they are not written twice. Internal: no grid shows it;
 * trimmed with the telemetry tables.
 */
@Entity('CaptureBatch')
export class CaptureBatch {
  @PortableIdentityColumn('CaptureBatch')
  Id!: number;

  @Index('IX_CaptureBatch_BatchGuid', { unique: true })
  @PortableColumn('string', { name: 'BatchGuid', length: L.guid })
  BatchGuid!: string;

  /** The table the batch went to. */
  @PortableColumn('string', { name: 'TableName', length: L.queueName })
  TableName!: string;

  @PortableColumn('integer', { name: 'RowCount' })
  RowCount!: number;

  @Index('IX_CaptureBatch_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: L.instance })
  Instance!: string;
}

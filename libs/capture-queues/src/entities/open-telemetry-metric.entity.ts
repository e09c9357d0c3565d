import { Entity, Index } from 'typeorm';
import { PortableColumn, PortableIdentityColumn } from '@app/database';
import { CAPTURE_LENGTHS as L } from '../capture-queue-id';

/**
 * One series (instrument name + attribute set) folded over one collection interval (the flush interval,
 * one minute by default): queueId 6.
 */
@Entity('OpenTelemetryMetric')
@Index('IX_OpenTelemetryMetric_InstrumentName_IntervalStartDate', ['InstrumentName', 'IntervalStartDate'])
export class OpenTelemetryMetric {
  @PortableIdentityColumn('OpenTelemetryMetric')
  Id!: number;

  @PortableColumn('string', { name: 'InstrumentName', length: L.instrumentName })
  InstrumentName!: string;

  /** counter, updowncounter, gauge or histogram. */
  @PortableColumn('string', { name: 'InstrumentType', length: L.instrumentType })
  InstrumentType!: string;

  @PortableColumn('string', { name: 'Unit', length: L.unit })
  Unit!: string;

  /** The attribute set as JSON with sorted keys ("{}" for none). */
  @PortableColumn('text', { name: 'Attributes' })
  Attributes!: string;

  /** Histograms: measurements; sums and gauges: data points folded. */
  @PortableColumn('bigint', { name: 'Count' })
  Count!: number;

  @PortableColumn('double', { name: 'Sum' })
  Sum!: number;

  @PortableColumn('double', { name: 'Min', nullable: true })
  Min!: number | null;

  @PortableColumn('double', { name: 'Max', nullable: true })
  Max!: number | null;

  /** Histograms only: {"boundaries":[...],"counts":[...]} (counts has one more element). */
  @PortableColumn('text', { name: 'Buckets', nullable: true })
  Buckets!: string | null;

  @PortableColumn('timestamp', { name: 'IntervalStartDate' })
  IntervalStartDate!: Date;

  @PortableColumn('timestamp', { name: 'IntervalEndDate' })
  IntervalEndDate!: Date;

  @Index('IX_OpenTelemetryMetric_CreatedDate')
  @PortableColumn('timestamp', { name: 'CreatedDate' })
  CreatedDate!: Date;

  @PortableColumn('string', { name: 'Instance', length: L.instance })
  Instance!: string;
}

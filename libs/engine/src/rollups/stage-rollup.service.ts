import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { ENGINE_SETTINGS, type EngineSettings } from '@app/config';
import { Clock } from '@app/runtime';
import {
  ARCHIVER_STAGE_NAMES,
  ArchiverStage,
  CASE_CREATION_STAGE_NAMES,
  CaseCreationStage,
} from '../telemetry/stages';
import { ArchiverCounterRow, CaseCreationCounterRow, StageRollupRepository } from './stage-rollup.repository';

/**
 * One stage (per model for the Archiver) in the current interval: the time its runs took (total, and the
 * shortest and longest run, in µs) and the items those runs handled (count: InvokeCount). A stage that works
 * item by item runs once per item; one that works on a batch runs once per batch and counts its items.
 */
export interface StageAccumulator {
  total: number;
  min: number;
  max: number;
  count: number;
}

function add(map: Map<string, StageAccumulator>, key: string, micros: number, items: number): void {
  const a = map.get(key);
  if (!a) map.set(key, { total: micros, min: micros, max: micros, count: items });
  else {
    a.total += micros;
    if (micros < a.min) a.min = micros;
    if (micros > a.max) a.max = micros;
    a.count += items;
  }
}

function merge(into: Map<string, StageAccumulator>, from: Map<string, StageAccumulator>): void {
  for (const [key, b] of from) {
    const a = into.get(key);
    if (!a) into.set(key, b);
    else {
      a.total += b.total;
      a.min = Math.min(a.min, b.min);
      a.max = Math.max(a.max, b.max);
      a.count += b.count;
    }
  }
}

/**
 * The per-minute stage rollups (spec: ArchiverStagePerformanceCounter, CaseCreationStagePerformanceCounter).
 * Recording is a map update; every StageRollupIntervalMilliseconds one row per stage that ran is written,
 * with Instance. A failed write keeps the accumulated figures for the next interval (logged and counted).
 */
@Injectable()
export class StageRollupService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('StageRollup');
  private archiver = new Map<string, StageAccumulator>();
  private caseCreation = new Map<string, StageAccumulator>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  /** Failed writes since start (each logged). */
  failedWrites = 0;

  constructor(
    private readonly repo: StageRollupRepository,
    private readonly clock: Clock,
    @Inject(ENGINE_SETTINGS.token) private readonly settings: EngineSettings,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.settings.StageRollupIntervalMilliseconds);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /**
   * One run of an Archiver stage that took `micros` and handled `items` invocations (a batch: its rows). Kept
   * unrounded until the row is written, so the Total is the histogram's sum, not a sum of rounded runs.
   */
  recordArchiver(modelGuid: string, stage: ArchiverStage, micros: number, items = 1): void {
    add(this.archiver, `${modelGuid}|${stage}`, micros, items);
  }

  /** One run of a case creation stage that took `micros` and handled `items` activations (a batch: its size). */
  recordCaseCreation(stage: CaseCreationStage, micros: number, items = 1): void {
    add(this.caseCreation, String(stage), micros, items);
  }

  private readonly listeners = new Set<
    (rows: { archiver: ArchiverCounterRow[]; caseCreation: CaseCreationCounterRow[] }) => void
  >();

  /** Calls `listener` with each interval's rows once they are written (streams push them); returns an unsubscribe. */
  onWritten(
    listener: (rows: { archiver: ArchiverCounterRow[]; caseCreation: CaseCreationCounterRow[] }) => void,
  ): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Writes the interval's rows now; never overlaps a previous flush. */
  flush(): Promise<void> {
    const run = (this.flushing ?? Promise.resolve()).then(() => this.write());
    this.flushing = run;
    return run;
  }

  private async write(): Promise<void> {
    if (!this.archiver.size && !this.caseCreation.size) return;
    const archiver = this.archiver;
    const caseCreation = this.caseCreation;
    this.archiver = new Map();
    this.caseCreation = new Map();
    const now = new Date(this.clock.now());
    const Instance = this.settings.InstanceName.slice(0, 256);
    const archiverRows: ArchiverCounterRow[] = [...archiver].map(([key, a]) => {
      const [guid, stage] = key.split('|');
      const StageId = Number(stage) as ArchiverStage;
      return {
        EntityAnalysisModelGuid: guid,
        StageId,
        StageName: ARCHIVER_STAGE_NAMES[StageId],
        TotalMicroseconds: Math.round(a.total),
        MinMicroseconds: Math.round(a.min),
        MaxMicroseconds: Math.round(a.max),
        InvokeCount: a.count,
        CreatedDate: now,
        Instance,
      };
    });
    const caseRows: CaseCreationCounterRow[] = [...caseCreation].map(([stage, a]) => {
      const StageId = Number(stage) as CaseCreationStage;
      return {
        StageId,
        StageName: CASE_CREATION_STAGE_NAMES[StageId],
        TotalMicroseconds: Math.round(a.total),
        MinMicroseconds: Math.round(a.min),
        MaxMicroseconds: Math.round(a.max),
        InvokeCount: a.count,
        CreatedDate: now,
        Instance,
      };
    });
    try {
      await this.repo.insert(archiverRows, caseRows);
      for (const listener of this.listeners) {
        try {
          listener({ archiver: archiverRows, caseCreation: caseRows });
        } catch (err) {
          this.logger.error({ err }, 'A rollup listener failed');
        }
      }
    } catch (err) {
      this.failedWrites++;
      this.logger.error({ err }, 'Writing the stage rollups failed; they are kept for the next interval');
      merge(this.archiver, archiver);
      merge(this.caseCreation, caseCreation);
    }
  }
}

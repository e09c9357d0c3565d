import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ENGINE_SETTINGS, type EngineSettings } from '@app/config';
import { Clock } from '@app/runtime';
import { shortReason } from '@app/problems';
import { ConfigurationRepository } from '../model/configuration.repository';
import { ArchiveRepository, type PurgePosition } from './archive.repository';
import { archiveRetentionMs } from './archive-retention';
import { PurgePace } from './purge-pace';

/**
 * Rows read and deleted per batch: each delete its own short transaction. Small, so that one batch holds a core
 * of the database for a few milliseconds only (a batch of 1 000 held it for about 100 ms and showed in Invoke's p99).
 */
export const PURGE_BATCH = 250;
/** A run works at most this share of the interval, so runs never pile up; what is left waits for the next. */
const RUN_BUDGET_SHARE = 0.5;
/** "Falling behind" is said at most once an hour. */
const BEHIND_WARN_EVERY_MS = 3_600_000;

/** What one purge run did (the summary line says it too). */
export interface PurgeReport {
  /** Rows deleted, over every model. */
  deleted: number;
  /** Rows past their retention kept because an open case names them. */
  kept: number;
  tookMs: number;
  /** True when the run's time budget ended with rows past retention left to purge. */
  behind: boolean;
  /** The oldest row left, over the models purged (null: none). */
  oldestLeft: Date | null;
}

/**
 * The archive's retention: every ArchivePurgeIntervalMilliseconds, each model's rows older than its retention
 * (archiveRetentionMs) are deleted, except those an open case names (a case manager may still reprocess them),
 * oldest first, PURGE_BATCH rows a statement and a transaction, resting between batches (PurgePace: longer while
 * the node is busy) so the answers do not feel it (bench:archive-purge). One summary line per run that removed or kept anything; a warn line, at most
 * hourly, when runs end with rows past retention still to purge (the archive grows faster than it is purged).
 */
@Injectable()
export class ArchivePurgeService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('ArchivePurge');
  private timer?: NodeJS.Timeout;
  private running: Promise<PurgeReport> | null = null;
  private stopped = false;
  private lastBehindWarn = -Infinity;
  /** Where a model's walk stopped when a run's budget ended: the next run goes on from there. */
  private readonly positions = new Map<number, PurgePosition>();

  constructor(
    private readonly archive: ArchiveRepository,
    private readonly configuration: ConfigurationRepository,
    private readonly clock: Clock,
    @Inject(ENGINE_SETTINGS.token) private readonly settings: EngineSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** One run now (runs never overlap: a call during one answers that one). */
  purge(): Promise<PurgeReport> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.purge()
        .catch((err: unknown) => this.logger.error({ err: shortReason(err) }, 'The archive purge failed'))
        .finally(() => this.schedule());
    }, this.settings.ArchivePurgeIntervalMilliseconds);
    this.timer.unref();
  }

  private async run(): Promise<PurgeReport> {
    const started = performance.now();
    const deadline = started + this.settings.ArchivePurgeIntervalMilliseconds * RUN_BUDGET_SHARE;
    const report: PurgeReport = { deleted: 0, kept: 0, tookMs: 0, behind: false, oldestLeft: null };
    for (const model of await this.configuration.listModelRetentions()) {
      const retention = archiveRetentionMs(model.ArchiveRetentionDays, this.settings);
      if (retention === null || this.stopped) continue;
      const done = await this.purgeModel(model.Id, new Date(this.clock.now() - retention), deadline, report);
      if (!done) report.behind = true;
      const oldest = await this.archive.oldest(model.Id);
      if (oldest && (!report.oldestLeft || oldest < report.oldestLeft)) report.oldestLeft = oldest;
      if (!done) break;
    }
    report.tookMs = Math.round(performance.now() - started);
    this.say(report);
    return report;
  }

  /** A model's rows before `before`, batch by batch; false when the budget ended first. */
  private async purgeModel(
    modelId: number,
    before: Date,
    deadline: number,
    report: PurgeReport,
  ): Promise<boolean> {
    // Rows kept for open cases stay at the head of the walk: a run goes on where the last one stopped, and a
    // walk that reached the cutoff starts over next time (cases close, or move to newer entries).
    let after: PurgePosition | null = this.positions.get(modelId) ?? null;
    this.positions.delete(modelId);
    const pace = new PurgePace();
    for (;;) {
      if (this.stopped || performance.now() >= deadline) {
        if (after) this.positions.set(modelId, after);
        return false;
      }
      const batchStart = performance.now();
      const page = await this.archive.purgeCandidates(modelId, before, after, PURGE_BATCH);
      const kept = page.filter((c) => c.kept).length;
      report.kept += kept;
      report.deleted += await this.archive.purge(page.filter((c) => !c.kept).map((c) => c.id));
      if (page.length < PURGE_BATCH) return true;
      after = page[page.length - 1];
      await pace.rest(performance.now() - batchStart);
    }
  }

  private say(r: PurgeReport): void {
    if (r.deleted || r.kept)
      this.logger.log(
        {
          deleted: r.deleted,
          keptForOpenCases: r.kept,
          tookMilliseconds: r.tookMs,
          oldestLeft: r.oldestLeft?.toISOString() ?? null,
        },
        'Archive purge run',
      );
    if (!r.behind) return;
    const now = this.clock.now();
    if (now - this.lastBehindWarn < BEHIND_WARN_EVERY_MS) return;
    this.lastBehindWarn = now;
    this.logger.warn(
      { deleted: r.deleted, tookMilliseconds: r.tookMs },
      'The archive purge ended its run with rows past their retention still to remove: the archive grows faster than the purge removes it',
    );
  }
}

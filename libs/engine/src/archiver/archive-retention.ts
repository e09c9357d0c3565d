import { intervalToMilliseconds, type EngineSettings } from '@app/config';

const DAY_MS = 86_400_000;

/**
 * How long a model's archived invocations are kept, in ms (null: for ever): the model's own
 * ArchiveRetentionDays (0: for ever), else the ArchiveRetentionInterval settings (unset: for ever). The purge and
 * Reprocess's "past retention" answer read it here, so they agree.
 */
export function archiveRetentionMs(
  modelDays: number | null,
  settings: Pick<EngineSettings, 'ArchiveRetentionInterval' | 'ArchiveRetentionIntervalValue'>,
): number | null {
  if (modelDays !== null) return modelDays === 0 ? null : modelDays * DAY_MS;
  const value = settings.ArchiveRetentionIntervalValue;
  return value === undefined ? null : intervalToMilliseconds(settings.ArchiveRetentionInterval, value);
}

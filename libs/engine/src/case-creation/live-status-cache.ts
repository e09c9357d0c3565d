import { Injectable } from '@nestjs/common';
import { Clock } from '@app/runtime';
import { ConfigurationRepository, type LiveStatus } from '../model/configuration.repository';
import { CONFIGURATION_TTL_MS, ModelCatalog } from '../model/model-catalog';

/**
 * The workflow statuses case creation decides with, held in memory: a status rarely changes, and reading it
 * per activation was one of the round trips that held case creation to ~500 a second. Forgotten
 * whole when a workflow or status is written on this node (ModelCatalog.generation moves on) and at the
 * latest CONFIGURATION_TTL_MS after it was loaded, the bound within which another node's change arrives, as
 * for the compiled models. A deleted or unknown status is remembered as null.
 */
@Injectable()
export class LiveStatusCache {
  private readonly statuses = new Map<number, LiveStatus | null>();
  private loadedAt = 0;
  private generation = -1;

  constructor(
    private readonly repo: ConfigurationRepository,
    private readonly catalog: ModelCatalog,
    private readonly clock: Clock,
  ) {}

  /** The statuses of these ids (null: deleted or unknown), reading only the ones not held in ONE query. */
  async get(ids: Iterable<number>): Promise<ReadonlyMap<number, LiveStatus | null>> {
    const now = this.clock.now();
    if (this.generation !== this.catalog.generation || now - this.loadedAt >= CONFIGURATION_TTL_MS) {
      this.statuses.clear();
      this.generation = this.catalog.generation;
      this.loadedAt = now;
    }
    const missing = [...new Set(ids)].filter((id) => !this.statuses.has(id));
    if (!missing.length) return this.statuses;
    const generation = this.catalog.generation;
    const found = await this.repo.findLiveStatusesByIds(missing);
    const answer = new Map(this.statuses);
    for (const id of missing) answer.set(id, found.get(id) ?? null);
    // A write that settled while this read was out may not be in it: answered, but not kept.
    if (generation === this.catalog.generation && this.generation === generation)
      for (const id of missing) this.statuses.set(id, answer.get(id) ?? null);
    return answer;
  }
}

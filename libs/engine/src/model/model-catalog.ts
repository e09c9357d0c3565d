import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@app/runtime';
import { shortReason } from '@app/problems';
import { FieldDataType } from '../entities';
import { JsonPath, parseJsonPath } from './json-path';
import { parseRuleCondition, RuleCondition } from './rule-condition';
import { ConfigurationRepository } from './configuration.repository';

export interface CompiledField {
  name: string;
  path: JsonPath;
  type: FieldDataType;
  required: boolean;
}

export interface CompiledRule {
  guid: string;
  name: string;
  condition: RuleCondition;
  caseWorkflow: { id: number; guid: string; name: string } | null;
  caseWorkflowStatusId: number | null;
  caseWorkflowStatusGuid: string | null;
  caseKeyFieldName: string | null;
}

/** A model ready to run: paths parsed and conditions checked once, not per invocation. */
export interface CompiledModel {
  id: number;
  guid: string;
  name: string;
  tenantId: number;
  active: boolean;
  /** null = off. */
  logsWarnThresholdNanoseconds: bigint | null;
  enableRdbmsArchive: boolean;
  /** EntityAnalysisModel.ArchiveRetentionDays (null: the settings; 0: for ever). */
  archiveRetentionDays: number | null;
  entryPath: JsonPath | null;
  referenceDatePath: JsonPath | null;
  fields: CompiledField[];
  rules: CompiledRule[];
}

/** How long another node's configuration change may take to reach this node's invocations (and case creation). */
export const CONFIGURATION_TTL_MS = 10_000;

/** After a failed refresh, the next one is tried no sooner than this. */
const REFRESH_RETRY_MS = 1_000;

interface CatalogEntry {
  /** When the load that gave `model` began. */
  at: number;
  model: Promise<CompiledModel | null>;
  refreshing?: boolean;
  retryAt?: number;
}

/**
 * Compiled models by guid. A write on this node (through `changed`) forgets them once it has settled: the
 * next invocation waits for the new one. A model older than CONFIGURATION_TTL_MS is read again in the
 * background while invocations go on with the one held (stale while revalidating), so no invocation ever
 * waits for a periodic reload: under load that wait, every 10 s, was the slowest of all answers. Writes on
 * other nodes therefore arrive within CONFIGURATION_TTL_MS plus one reload; while the database cannot be read
 * the model held stays in use (a refresh is tried again each second, its first failure logged). Invocations
 * never wait for more than one load of the same model at a time.
 */
@Injectable()
export class ModelCatalog {
  private readonly logger = new Logger('ModelCatalog');
  private readonly cache = new Map<string, CatalogEntry>();
  /** Moves on with every configuration write on this node: other caches of configuration compare it. */
  generation = 0;

  constructor(
    private readonly repo: ConfigurationRepository,
    private readonly clock: Clock,
  ) {}

  /**
   * A configuration write on this node, then the compiled models forgotten: once the write has settled, so an
   * invocation that compiled a model while the write was in flight cannot keep the old configuration cached.
   */
  async changed<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.cache.clear();
      this.generation++;
    }
  }

  get(guid: string): Promise<CompiledModel | null> {
    const now = this.clock.now();
    const hit = this.cache.get(guid);
    if (hit) {
      if (now - hit.at >= CONFIGURATION_TTL_MS) this.revalidate(guid, hit, now);
      return hit.model;
    }
    if (this.cache.size > 10_000) this.cache.clear();
    const model = this.load(guid);
    this.cache.set(guid, { at: now, model });
    model.catch(() => this.cache.delete(guid));
    return model;
  }

  /** Reads a held model again in the background; it replaces the held one unless a write settled meanwhile. */
  private revalidate(guid: string, hit: CatalogEntry, now: number): void {
    if (hit.refreshing || (hit.retryAt ?? 0) > now) return;
    hit.refreshing = true;
    const generation = this.generation;
    const model = this.load(guid);
    model.then(
      () => {
        if (this.generation === generation && this.cache.get(guid) === hit)
          this.cache.set(guid, { at: now, model });
      },
      (err: unknown) => {
        if (hit.retryAt === undefined)
          this.logger.warn(
            { model: guid, err: shortReason(err) },
            'Refreshing a compiled model failed; the one held stays in use',
          );
        hit.refreshing = false;
        hit.retryAt = this.clock.now() + REFRESH_RETRY_MS;
      },
    );
  }

  private async load(guid: string): Promise<CompiledModel | null> {
    const m = await this.repo.findModelByGuid(guid);
    if (!m) return null;
    const [xpaths, rules] = await Promise.all([this.repo.listXPaths(m.Id), this.repo.listRules(m.Id)]);
    const activeRules = rules.filter((r) => r.Active);
    const workflows = new Map(
      (
        await this.repo.findWorkflowsByIds([
          ...new Set(activeRules.flatMap((r) => (r.CaseWorkflowId ? [r.CaseWorkflowId] : []))),
        ])
      )
        .filter((w) => w.DeletedDate === null && w.Active)
        .map((w) => [w.Id, w]),
    );
    const statuses = new Map(
      (
        await this.repo.findStatusesByIds(
          activeRules.flatMap((r) => (r.CaseWorkflowStatusId ? [r.CaseWorkflowStatusId] : [])),
        )
      )
        .filter((s) => s.DeletedDate === null)
        .map((s) => [s.Id, s]),
    );
    const path = (text: string | null): JsonPath | null => {
      if (!text) return null;
      const p = parseJsonPath(text);
      return typeof p === 'string' ? null : p;
    };
    return {
      id: m.Id,
      guid: m.Guid,
      name: m.Name,
      tenantId: m.TenantRegistryId,
      active: m.Active,
      logsWarnThresholdNanoseconds:
        m.LogsWarnThresholdMilliseconds === null
          ? null
          : BigInt(m.LogsWarnThresholdMilliseconds) * 1_000_000n,
      enableRdbmsArchive: m.EnableRdbmsArchive,
      archiveRetentionDays: m.ArchiveRetentionDays,
      entryPath: path(m.EntryXPath),
      referenceDatePath: path(m.ReferenceDateXPath),
      fields: xpaths.flatMap((x) => {
        const p = path(x.XPath);
        return p ? [{ name: x.Name, path: p, type: x.DataTypeId, required: x.Required }] : [];
      }),
      rules: activeRules.flatMap((r) => {
        const condition = parseRuleCondition(r.ConditionJson);
        if (typeof condition === 'string') return [];
        const wf = r.CaseWorkflowId ? workflows.get(r.CaseWorkflowId) : undefined;
        const status = r.CaseWorkflowStatusId ? statuses.get(r.CaseWorkflowStatusId) : undefined;
        const linked = wf && status && status.CaseWorkflowId === wf.Id;
        return [
          {
            guid: r.Guid,
            name: r.Name,
            condition,
            caseWorkflow: linked ? { id: wf.Id, guid: wf.Guid, name: wf.Name } : null,
            caseWorkflowStatusId: linked ? status.Id : null,
            caseWorkflowStatusGuid: linked ? status.Guid : null,
            caseKeyFieldName: r.CaseKeyFieldName,
          },
        ];
      }),
    };
  }
}

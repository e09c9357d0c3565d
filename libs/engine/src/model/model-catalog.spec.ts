import { Logger } from '@nestjs/common';
import { ManualClock } from '@app/runtime';
import type { ConfigurationRepository } from './configuration.repository';
import { CONFIGURATION_TTL_MS, ModelCatalog } from './model-catalog';

const GUID = '0195f0d2-0000-7000-8000-000000000002';

/** A configuration whose model name is read from `state` at each load; loads wait for `gate` when set. */
function catalogOver(state: { name: string; fail?: boolean; gate?: Promise<void> }, clock: ManualClock) {
  let loads = 0;
  const repo = {
    findModelByGuid: async () => {
      loads++;
      const name = state.name;
      if (state.gate) await state.gate;
      if (state.fail) throw new Error('connect ECONNREFUSED');
      return {
        Id: 1,
        Guid: GUID,
        Name: name,
        TenantRegistryId: 1,
        Active: true,
        LogsWarnThresholdMilliseconds: null,
        EnableRdbmsArchive: true,
        EntryXPath: null,
        ReferenceDateXPath: null,
      };
    },
    listXPaths: () => Promise.resolve([]),
    listRules: () => Promise.resolve([]),
    findWorkflowsByIds: () => Promise.resolve([]),
    findStatusesByIds: () => Promise.resolve([]),
  } as unknown as ConfigurationRepository;
  return { catalog: new ModelCatalog(repo, clock), loads: () => loads };
}
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('ModelCatalog: a periodic reload never makes an invocation wait', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('past CONFIGURATION_TTL_MS the held model answers at once while ONE reload runs; the reload then replaces it', async () => {
    const clock = new ManualClock(0);
    const state: { name: string; gate?: Promise<void> } = { name: 'v1' };
    const { catalog, loads } = catalogOver(state, clock);
    expect((await catalog.get(GUID))?.name).toBe('v1');
    clock.advance(CONFIGURATION_TTL_MS);
    let open!: () => void;
    state.gate = new Promise((resolve) => (open = resolve));
    state.name = 'v2';
    // the reload is held at the database: the answers come from the model held, without waiting for it
    expect((await catalog.get(GUID))?.name).toBe('v1');
    expect((await catalog.get(GUID))?.name).toBe('v1');
    expect(loads()).toBe(2);
    open();
    await settled();
    expect((await catalog.get(GUID))?.name).toBe('v2');
    expect(loads()).toBe(2);
  });

  it('a write on this node during a reload: the reload is not kept, the next invocation reads the write', async () => {
    const clock = new ManualClock(0);
    const state: { name: string; gate?: Promise<void> } = { name: 'v1' };
    const { catalog } = catalogOver(state, clock);
    await catalog.get(GUID);
    clock.advance(CONFIGURATION_TTL_MS);
    let open!: () => void;
    state.gate = new Promise((resolve) => (open = resolve));
    await catalog.get(GUID); // starts the reload, which reads 'v1' as the row still is
    state.gate = undefined;
    state.name = 'v3';
    await catalog.changed(Promise.resolve());
    open();
    await settled();
    expect((await catalog.get(GUID))?.name).toBe('v3');
  });

  it('a reload that fails keeps the model held, tries again a second later, and says so once', async () => {
    const clock = new ManualClock(0);
    const state: { name: string; fail?: boolean } = { name: 'v1' };
    const { catalog, loads } = catalogOver(state, clock);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      await catalog.get(GUID);
      clock.advance(CONFIGURATION_TTL_MS);
      state.fail = true;
      expect((await catalog.get(GUID))?.name).toBe('v1');
      await settled();
      clock.advance(999);
      expect((await catalog.get(GUID))?.name).toBe('v1');
      expect(loads()).toBe(2);
      clock.advance(1);
      await catalog.get(GUID);
      await settled();
      expect(loads()).toBe(3);
      expect(warn).toHaveBeenCalledTimes(1);
      state.fail = false;
      state.name = 'v2';
      clock.advance(1_000);
      await catalog.get(GUID);
      await settled();
      expect((await catalog.get(GUID))?.name).toBe('v2');
    } finally {
      warn.mockRestore();
    }
  });
});

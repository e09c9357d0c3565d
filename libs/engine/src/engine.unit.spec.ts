import { Logger } from '@nestjs/common';
import { loadSettings, Settings } from '@app/config';
import { ManualClock } from '@app/runtime';
import { ArchiveRepository, ArchiveRow } from './archiver/archive.repository';
import { ArchiverService } from './archiver/archiver.service';
import { CaseCreationService } from './case-creation/case-creation.service';
import { fillTemplate, singleLine } from './case-creation/templates';
import { FieldDataType } from './entities';
import { convertField } from './model/field-types';
import { parseJsonPath, readJsonPath } from './model/json-path';
import { evaluateRuleCondition, parseRuleCondition } from './model/rule-condition';
import { StageRollupRepository } from './rollups/stage-rollup.repository';
import { StageRollupService } from './rollups/stage-rollup.service';
import { InMemoryPipelineTelemetry } from './telemetry/pipeline-telemetry';
import { ArchiverStage, CaseCreationStage } from './telemetry/stages';

// The failure paths log on purpose; keep the test output quiet.
beforeAll(() => Logger.overrideLogger(false));

const settings = (env: Record<string, string> = {}): Settings =>
  loadSettings({ InstanceName: 'node-1', ...env });

describe('JSON paths', () => {
  it('parses $-rooted and bare paths with indexes and reads own properties only', () => {
    const p = parseJsonPath('$.items[1].sku');
    expect(p).toEqual(['items', 1, 'sku']);
    expect(readJsonPath({ items: [{ sku: 'a' }, { sku: 'b' }] }, p as (string | number)[])).toBe('b');
    expect(parseJsonPath('amount')).toEqual(['amount']);
    expect(readJsonPath({}, ['toString'])).toBeUndefined();
    expect(readJsonPath({ a: 1 }, ['a', 'b'])).toBeUndefined();
  });

  it.each(['', '$', '$.a..b', '$.a[x]', '$.__proto__', 'a.constructor', '$.a b', 'a[1]b'])(
    'refuses %j',
    (text) => {
      expect(typeof parseJsonPath(text)).toBe('string');
    },
  );
});

describe('rule conditions (JSON Logic, data never code)', () => {
  it('evaluates over the extracted fields', () => {
    const c = parseRuleCondition(
      '{"and":[{">":[{"var":"Amount"},100]},{"in":[{"var":"Country"},["DE","FR"]]}]}',
    );
    expect(typeof c).not.toBe('string');
    if (typeof c === 'string') return;
    expect(evaluateRuleCondition(c, { Amount: 150, Country: 'DE' })).toBe(true);
    expect(evaluateRuleCondition(c, { Amount: 150, Country: 'NL' })).toBe(false);
    expect(evaluateRuleCondition(c, {})).toBe(false);
  });

  it.each([
    ['not JSON', '{'],
    ['method calls', '{"method":[{"var":"x"},"toString"]}'],
    ['console output', '{"log":"x"}'],
    ['unknown operators', '{"eval":"1"}'],
    ['prototype variables', '{"var":"a.__proto__"}'],
    ['two operators in one node', '{"==":[1,1],"!=":[1,2]}'],
  ])('refuses %s', (_what, text) => {
    expect(typeof parseRuleCondition(text)).toBe('string');
  });
});

describe('field data types', () => {
  it.each([
    [FieldDataType.String, 12, '12'],
    [FieldDataType.Integer, '42', 42],
    [FieldDataType.Integer, 4.2, undefined],
    [FieldDataType.Float, '4.5', 4.5],
    [FieldDataType.Float, 'abc', undefined],
    [FieldDataType.Boolean, 'true', true],
    [FieldDataType.Boolean, 1, undefined],
    [FieldDataType.DateTime, '2026-01-02T03:04:05+01:00', '2026-01-02T02:04:05.000Z'],
    [FieldDataType.DateTime, 'yesterday', undefined],
    [FieldDataType.String, { a: 1 }, undefined],
  ])('type %s converts %j to %j', (type, input, expected) => {
    expect(convertField(input, type)).toEqual(expected);
  });
});

describe('templates', () => {
  it('fills {FieldName} tokens, keeps unknown ones, encodes for URLs, and keeps headers on one line', () => {
    expect(fillTemplate('Case {Key} {Nope} {N}', { Key: 'A-1', N: 3 })).toBe('Case A-1 {Nope} 3');
    expect(fillTemplate('/x?k={Key}', { Key: 'a b&c' }, encodeURIComponent)).toBe('/x?k=a%20b%26c');
    expect(fillTemplate('{toString}', {})).toBe('{toString}');
    expect(singleLine('Subject\r\nBcc: evil@example.test')).toBe('Subject Bcc: evil@example.test');
  });
});

describe('stage rollups', () => {
  it('accumulates total, min, max and count per stage (per model for the Archiver) and writes one row per stage', async () => {
    const written: { archiver: unknown[]; cases: unknown[] }[] = [];
    const repo = {
      insert: (archiver: unknown[], cases: unknown[]) => {
        written.push({ archiver, cases });
        return Promise.resolve();
      },
    } as unknown as StageRollupRepository;
    const rollups = new StageRollupService(repo, new ManualClock(0), settings());
    rollups.recordArchiver('m1', ArchiverStage.BuildArchiveJson, 10);
    rollups.recordArchiver('m1', ArchiverStage.BuildArchiveJson, 30);
    rollups.recordArchiver('m2', ArchiverStage.BuildArchiveJson, 5);
    rollups.recordCaseCreation(CaseCreationStage.Notification, 7);
    await rollups.flush();
    expect(written).toHaveLength(1);
    expect(written[0].archiver).toEqual([
      expect.objectContaining({
        EntityAnalysisModelGuid: 'm1',
        StageId: 1,
        StageName: 'BuildArchiveJson',
        TotalMicroseconds: 40,
        MinMicroseconds: 10,
        MaxMicroseconds: 30,
        InvokeCount: 2,
        Instance: 'node-1',
      }),
      expect.objectContaining({ EntityAnalysisModelGuid: 'm2', InvokeCount: 1 }),
    ]);
    expect(written[0].cases).toEqual([
      expect.objectContaining({ StageId: 3, StageName: 'Notification', InvokeCount: 1 }),
    ]);
    await rollups.flush();
    expect(written).toHaveLength(1); // nothing ran: no rows
  });

  it('keeps the figures when a write fails and writes them, merged, next time', async () => {
    let fail = true;
    const written: { InvokeCount: number; MaxMicroseconds: number }[][] = [];
    const repo = {
      insert: (archiver: { InvokeCount: number; MaxMicroseconds: number }[]) => {
        if (fail) return Promise.reject(new Error('down'));
        written.push(archiver);
        return Promise.resolve();
      },
    } as unknown as StageRollupRepository;
    const rollups = new StageRollupService(repo, new ManualClock(0), settings({ LogLevel: 'silent' }));
    rollups.recordArchiver('m', ArchiverStage.RdbmsArchiveWrite, 10);
    await rollups.flush();
    expect(rollups.failedWrites).toBe(1);
    rollups.recordArchiver('m', ArchiverStage.RdbmsArchiveWrite, 50);
    fail = false;
    await rollups.flush();
    expect(written).toEqual([[expect.objectContaining({ InvokeCount: 2, MaxMicroseconds: 50 })]]);
  });
});

describe('Archiver bulk copy', () => {
  it('keeps the buffered rows when the database is unreachable and writes them, once, when it is back', async () => {
    const stored: ArchiveRow[] = [];
    let down = true;
    const archive = {
      bulkInsert: (rows: ArchiveRow[]) => {
        if (down)
          return Promise.reject(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
        stored.push(...rows);
        return Promise.resolve();
      },
    } as unknown as ArchiveRepository;
    const telemetry = new InMemoryPipelineTelemetry();
    const rollups = { recordArchiver: jest.fn() } as unknown as StageRollupService;
    const cases = {
      enqueue: jest.fn(() => Promise.resolve()),
      idle: () => Promise.resolve(),
    } as unknown as CaseCreationService;
    const archiver = new ArchiverService(archive, cases, rollups, telemetry, new ManualClock(0), settings());
    for (let i = 0; i < 3; i++)
      archiver.enqueue({
        modelId: 1,
        modelGuid: 'm',
        enableRdbmsArchive: true,
        entryGuid: `e${i}`,
        entryReference: null,
        referenceDate: new Date(0),
        payload: { i },
        cases: [],
      });
    await archiver.drain();
    expect(stored).toHaveLength(0);
    expect(archiver.failedCopies).toBe(1);
    expect(telemetry.failures.get(`archiver:${ArchiverStage.BulkCopyArchiveBuffer}`)).toBe(1);
    expect(archiver.isBuffered('m', 'e1')).toBe(true);
    down = false;
    await archiver.bulkCopy();
    await archiver.bulkCopy();
    expect(stored.map((r) => r.EntityAnalysisModelInstanceEntryGuid)).toEqual(['e0', 'e1', 'e2']);
    expect(archiver.copiedRows).toBe(3);
  });
});

describe('Archiver warnings', () => {
  it('above ArchiverWarnThresholdMilliseconds every stage warns once through the port (BulkCopyArchiveBuffer with no entry guid), case dispatch after the bulk copy', async () => {
    const archive = { bulkInsert: () => Promise.resolve() } as unknown as ArchiveRepository;
    const telemetry = new InMemoryPipelineTelemetry();
    const rollups = { recordArchiver: jest.fn() } as unknown as StageRollupService;
    const cases = {
      enqueue: jest.fn(() => Promise.resolve()),
      idle: () => Promise.resolve(),
    } as unknown as CaseCreationService;
    const archiver = new ArchiverService(
      archive,
      cases,
      rollups,
      telemetry,
      new ManualClock(0),
      settings({ ArchiverWarnThresholdMilliseconds: '0' }),
    );
    archiver.enqueue({
      modelId: 1,
      modelGuid: 'm',
      enableRdbmsArchive: true,
      entryGuid: 'e1',
      entryReference: null,
      referenceDate: new Date(0),
      payload: {},
      cases: [],
    });
    await archiver.drain();
    expect(
      telemetry.archiverWarnings.map((w) => [w.stageId, w.entityAnalysisModelInstanceEntryGuid]),
    ).toEqual([
      [ArchiverStage.BuildArchiveJson, 'e1'],
      [ArchiverStage.RdbmsArchiveWrite, 'e1'],
      // dispatched once its slice was committed; the bulk copy's run ends (and is measured) after its last slice
      [ArchiverStage.CaseCreationDispatch, 'e1'],
      [ArchiverStage.BulkCopyArchiveBuffer, null],
    ]);
    expect(telemetry.counters['service.engine.archiver.warn.count']).toBe(4);
    expect(telemetry.archiverWarnings.every((w) => w.entityAnalysisModelGuid === 'm')).toBe(true);
    expect(rollups.recordArchiver).toHaveBeenCalledTimes(4);
  });
});

import { ManualClock } from '@app/runtime';
import { CAPTURE_QUEUE_CAPACITY } from './capture-queue-id';
import { CaptureQueues, type CaseCreationWarningInput } from './capture-queues.service';

describe('CaptureQueues enqueue', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));

  it('makes text inert, cuts it to its column and stamps CreatedDate at capture', () => {
    const q = new CaptureQueues(clock);
    q.enqueueCaseCreationWarning({
      caseWorkflowGuid: 'g'.repeat(100),
      caseWorkflowName: 'Fraud\u001b[31m',
      caseKey: 'AccountId',
      caseKeyValue: 'v'.repeat(5000),
      stageId: 3,
      durationMicroseconds: 12.6,
      destination: 'ops@example.test',
    });
    const [e] = q.caseCreationWarning.drain();
    expect(e.CaseWorkflowGuid).toHaveLength(36);
    expect(e.CaseWorkflowName).toBe('Fraud\uFFFD[31m');
    expect(e.CaseKeyValue).toHaveLength(1024);
    expect(e).toMatchObject({ StageId: 3, DurationMicroseconds: 13, Destination: 'ops@example.test' });
    expect(e.CreatedDate.getTime()).toBe(Date.UTC(2026, 0, 1));
  });

  it('never throws on loosely typed input from a caller, and never stores an invalid date', () => {
    const q = new CaptureQueues(clock);
    const loose = {
      caseWorkflowGuid: 42,
      caseWorkflowName: { a: 1 },
      caseKey: null,
      caseKeyValue: undefined,
      stageId: 'x',
      durationMicroseconds: Number.NaN,
    } as unknown as CaseCreationWarningInput;
    expect(q.enqueueCaseCreationWarning(loose)).toBe(true);
    expect(q.caseCreationWarning.drain()[0]).toMatchObject({
      CaseWorkflowGuid: '42',
      CaseWorkflowName: '{"a":1}',
      CaseKey: '',
      CaseKeyValue: '',
      StageId: 0,
      DurationMicroseconds: 0,
      Destination: null,
    });
    q.enqueueCacheConnectionEvent('error', 'h:1', null, new Date(Number.NaN));
    expect(q.cacheConnectionEvent.drain()[0].OccurredDate.getTime()).toBe(Date.UTC(2026, 0, 1));
    const hostile = {
      get entityAnalysisModelGuid(): string {
        throw new Error('getter');
      },
    } as unknown as Parameters<CaptureQueues['enqueueArchiverWarning']>[0];
    expect(q.enqueueArchiverWarning(hostile)).toBe(false);
    expect(q.archiverWarning.takeDropped()).toBe(1);
  });

  it('when full, counts the drop without building the entry', () => {
    const q = new CaptureQueues(clock);
    for (let i = 0; i < CAPTURE_QUEUE_CAPACITY; i++) q.enqueueCacheSentinelEvent('+sdown', 'h:1', null);
    let built = false;
    const input = {
      get entityAnalysisModelGuid(): string {
        built = true;
        return 'g';
      },
    } as unknown as Parameters<CaptureQueues['enqueueArchiverWarning']>[0];
    for (let i = 0; i < CAPTURE_QUEUE_CAPACITY; i++) q.enqueueArchiverWarning(input);
    built = false;
    expect(q.enqueueArchiverWarning(input)).toBe(false);
    expect(built).toBe(false);
    expect(q.enqueueCacheSentinelEvent('+sdown', 'h:1', null)).toBe(false);
    expect(q.archiverWarning.takeDropped()).toBe(1);
    expect(q.cacheSentinelEvent.takeDropped()).toBe(1);
  });
});

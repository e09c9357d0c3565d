import { BoundedQueue } from './bounded-queue';

describe('BoundedQueue', () => {
  it('keeps entries in order across the wrap of the ring', () => {
    const q = new BoundedQueue<number>(4);
    q.enqueue(1);
    q.enqueue(2);
    q.enqueue(3);
    expect(q.drain()).toEqual([1, 2, 3]);
    for (let i = 4; i <= 7; i++) expect(q.enqueue(i)).toBe(true);
    expect(q.depth).toBe(4);
    expect(q.drain()).toEqual([4, 5, 6, 7]);
    expect(q.depth).toBe(0);
    expect(q.drain()).toEqual([]);
  });

  it('drops and counts exactly what arrives while full, and resets the count when read', () => {
    const q = new BoundedQueue<number>(3);
    const accepted = Array.from({ length: 10 }, (_, i) => q.enqueue(i));
    expect(accepted).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(q.takeDropped()).toBe(7);
    expect(q.takeDropped()).toBe(0);
    expect(q.drain()).toEqual([0, 1, 2]);
    q.countDropped(2);
    q.countDropped(0);
    expect(q.takeDropped()).toBe(2);
  });

  it('puts unwritten entries back in front of later ones, in order', () => {
    const q = new BoundedQueue<string>(5);
    q.enqueue('a');
    q.enqueue('b');
    const batch = q.drain();
    q.enqueue('c');
    q.requeueFront(batch);
    expect(q.depth).toBe(3);
    expect(q.takeDropped()).toBe(0);
    expect(q.drain()).toEqual(['a', 'b', 'c']);
  });

  it('beyond capacity on requeue, drops the oldest entries and counts them', () => {
    const q = new BoundedQueue<number>(4);
    for (let i = 0; i < 4; i++) q.enqueue(i);
    const batch = q.drain(); // 0..3 failed to write
    q.enqueue(10);
    q.enqueue(11);
    q.requeueFront(batch);
    expect(q.takeDropped()).toBe(2);
    expect(q.drain()).toEqual([2, 3, 10, 11]);
    // A full queue keeps its newer entries; the whole failed batch is the oldest.
    for (let i = 0; i < 4; i++) q.enqueue(20 + i);
    q.requeueFront([1, 2]);
    expect(q.takeDropped()).toBe(2);
    expect(q.drain()).toEqual([20, 21, 22, 23]);
  });

  it('releases drained entries and refuses a nonsensical capacity', () => {
    const q = new BoundedQueue<object>(2);
    q.enqueue({});
    q.drain();
    expect((q as unknown as { slots: unknown[] }).slots.every((s) => s === undefined)).toBe(true);
    expect(() => new BoundedQueue(0)).toThrow(RangeError);
    expect(() => new BoundedQueue(1.5)).toThrow(RangeError);
  });
});

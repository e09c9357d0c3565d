import { BACKGROUND_SLICE, inSlices } from './background-slices';

describe('inSlices: background work a slice a turn', () => {
  it('hands every item once, in order, in slices of at most the size, and answers in slice order', async () => {
    const items = Array.from({ length: 600 }, (_, i) => i);
    const seen: [number, number][] = [];
    const answers = await inSlices(items, (slice, offset) => {
      seen.push([offset, slice.length]);
      return slice.reduce((a, b) => a + b, 0);
    });
    expect(BACKGROUND_SLICE).toBe(256);
    expect(seen).toEqual([
      [0, 256],
      [256, 256],
      [512, 88],
    ]);
    expect(answers.reduce((a, b) => a + b, 0)).toBe((599 * 600) / 2);
    expect(await inSlices([], () => 1)).toEqual([]);
  });

  it('gives the event loop back between two slices: a callback queued meanwhile runs before the next slice', async () => {
    const order: string[] = [];
    await inSlices(
      [1, 2, 3],
      (slice) => {
        order.push(`slice ${slice[0]}`);
        // queued now: it may run only once this slice has given the loop back
        setImmediate(() => order.push(`other work after ${slice[0]}`));
      },
      1,
    );
    expect(order.slice(0, 4)).toEqual(['slice 1', 'other work after 1', 'slice 2', 'other work after 2']);
  });
});

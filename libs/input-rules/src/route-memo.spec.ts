import type { ExecutionContext } from '@nestjs/common';
import { perRoute } from './route-memo';

class Base {
  shared(): void {}
}
class First extends Base {}
class Second extends Base {}

const contextOf = (controller: object, handler: unknown) =>
  ({ getClass: () => controller, getHandler: () => handler }) as unknown as ExecutionContext;

describe('perRoute', () => {
  it('works a route out once, per controller and handler (an inherited handler serves two controllers)', () => {
    const computed: string[] = [];
    const nameOf = perRoute((controller) => {
      computed.push(controller.name);
      return controller.name;
    });
    const handler = Base.prototype.shared;
    expect(nameOf(contextOf(First, handler))).toBe('First');
    expect(nameOf(contextOf(Second, handler))).toBe('Second');
    expect(nameOf(contextOf(First, handler))).toBe('First');
    expect(computed).toEqual(['First', 'Second']);
  });

  it('keeps a falsy answer too', () => {
    let calls = 0;
    const none = perRoute(() => {
      calls++;
      return undefined;
    });
    none(contextOf(First, Base.prototype.shared));
    none(contextOf(First, Base.prototype.shared));
    expect(calls).toBe(1);
  });
});

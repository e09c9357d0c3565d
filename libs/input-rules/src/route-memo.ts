import type { ExecutionContext, Type } from '@nestjs/common';

/**
 * What a route's metadata says, worked out once per route instead of on every request (metadata is fixed once
 * the application is built). Kept per controller class and handler: an inherited handler may serve two
 * controllers whose class metadata differ.
 */
export function perRoute<T>(
  compute: (controller: Type<unknown>, handler: ReturnType<ExecutionContext['getHandler']>) => T,
): (context: ExecutionContext) => T {
  const byClass = new WeakMap<object, WeakMap<object, T>>();
  return (context) => {
    const controller = context.getClass();
    const handler = context.getHandler();
    let byHandler = byClass.get(controller);
    if (!byHandler) byClass.set(controller, (byHandler = new WeakMap()));
    if (byHandler.has(handler)) return byHandler.get(handler) as T;
    const value = compute(controller, handler);
    byHandler.set(handler, value);
    return value;
  };
}

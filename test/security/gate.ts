/**
 * A one-shot barrier for deterministic race tests: the first call of a wrapped method runs, then waits at the
 * gate until the test opens it; later calls pass straight through. So a test can hold one request between
 * its read and its write while another request runs to the end.
 */
export interface Gate {
  /** Resolves once the wrapped call has arrived at the gate. */
  reached: Promise<void>;
  open(): void;
}

/** The gates not opened yet. */
const unopened = new Set<Gate>();

/** Opens every gate still closed (afterEach): a failed test must not leave a request held, nor the app's close. */
export function openGates(): void {
  for (const g of [...unopened]) g.open();
}

/** The first call runs, then waits at the gate before it returns. */
export function gateAfter<T extends object, K extends keyof T>(target: T, method: K): Gate {
  return gate(target, method, 'after');
}

/** The first call waits at the gate before it runs. */
export function gateBefore<T extends object, K extends keyof T>(target: T, method: K): Gate {
  return gate(target, method, 'before');
}

function gate<T extends object, K extends keyof T>(target: T, method: K, where: 'before' | 'after'): Gate {
  const original = target[method] as unknown as (...args: unknown[]) => Promise<unknown>;
  let arrive!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((r) => (arrive = r));
  const opened = new Promise<void>((r) => (release = r));
  let armed = true;
  const wait = async () => {
    if (!armed) return;
    armed = false;
    arrive();
    await opened;
  };
  const wrapped = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
    if (where === 'before') await wait();
    const result = await original.apply(this, args);
    if (where === 'after') await wait();
    return result;
  };
  (target as Record<K, unknown>)[method] = wrapped;
  const handle: Gate = {
    reached,
    open: () => {
      unopened.delete(handle);
      release();
      (target as Record<K, unknown>)[method] = original;
    },
  };
  unopened.add(handle);
  return handle;
}

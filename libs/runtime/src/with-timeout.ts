/** The work did not settle in time; it may still complete later. */
export class TimeoutError extends Error {
  // a log line's short reason starts with the name: it says the work was slow, not that it failed
  override readonly name = 'TimeoutError';
}

/** Rejects with TimeoutError when `work` has not settled within `ms`. The timer never outlives the race. */
export function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * `f` applied to a value that is there now, or to the value of a Promise when it comes: a value in, a value out,
 * with no microtask turn. For the paths every request takes (the credential guard) where one source answers at
 * once (SQLite, an in-memory key set) and another later (a network database).
 */
export function nowOrLater<T, U>(value: T | Promise<T>, f: (value: T) => U): U | Promise<U> {
  return value instanceof Promise ? value.then(f) : f(value);
}

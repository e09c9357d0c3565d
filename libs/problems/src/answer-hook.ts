/**
 * A wait before a request's answer is written, set by a step that must see the answer first (Idempotency-Key keeps
 * it before the client can retry). The two writers of answers take it: the HTTP adapter's reply (a handler's
 * value) and ProblemFilter (a refusal). Requests that set none pay one property read.
 */
export type BeforeAnswer = (
  status: number,
  body: unknown,
  headers: Record<string, string> | undefined,
) => Promise<void>;

const BEFORE_ANSWER = Symbol('beforeAnswer');

interface WithHook {
  [BEFORE_ANSWER]?: BeforeAnswer;
}

/** Sets the wait of this response's answer. */
export function setBeforeAnswer(response: object, hook: BeforeAnswer): void {
  (response as WithHook)[BEFORE_ANSWER] = hook;
}

/** The wait of this response's answer, once: whoever takes it writes the answer after it. */
export function takeBeforeAnswer(response: object): BeforeAnswer | undefined {
  const hook = (response as WithHook)[BEFORE_ANSWER];
  if (hook) (response as WithHook)[BEFORE_ANSWER] = undefined;
  return hook;
}

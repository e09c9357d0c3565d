/** Where an answer that shed load is marked (a symbol: nothing a client can set). */
const SHED = Symbol('shed');

/**
 * Marks an answer as load shed (a 503 refused because a queue is full): its request line is not written, as
 * the shedding is counted and summarised once a second instead (issue 36: 711 741 error lines in two minutes
 * of overload). Other 5xx keep their line at `error`.
 */
export function markShed(res: object): void {
  (res as Record<symbol, boolean>)[SHED] = true;
}

export function isShed(res: object): boolean {
  return (res as Record<symbol, boolean | undefined>)[SHED] === true;
}

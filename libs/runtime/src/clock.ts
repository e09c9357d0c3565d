/** Time source; tests replace it to move time without sleeping. */
export abstract class Clock {
  abstract now(): number;
}

export class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}

export class ManualClock extends Clock {
  constructor(private current = Date.now()) {
    super();
  }
  now(): number {
    return this.current;
  }
  set(ms: number): void {
    this.current = ms;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

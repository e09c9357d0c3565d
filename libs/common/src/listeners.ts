import { Logger } from '@nestjs/common';

/**
 * In-process listeners of one kind of event. A listener that throws is logged and never stops the others nor
 * the emitter: the event has already happened (in the database) when it is told.
 */
export class Listeners<T> {
  private readonly listeners = new Set<(event: T) => void>();

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** Returns the function that removes the listener. */
  add(listener: (event: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: T): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error({ err }, `A ${this.what} listener failed`);
      }
    }
  }
}

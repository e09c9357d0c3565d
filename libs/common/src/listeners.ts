import { Logger } from '@nestjs/common';

/** A listener of one kind of event; one that returns a Promise can be waited for (emitAndWait). */
export type Listener<T> = (event: T) => void | Promise<void>;

/**
 * In-process listeners of one kind of event. A listener that throws (or whose Promise rejects) is logged and
 * never stops the others nor the emitter: the event has already happened (in the database) when it is told.
 */
export class Listeners<T> {
  private readonly listeners = new Set<Listener<T>>();

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  /** Returns the function that removes the listener. */
  add(listener: Listener<T>): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells every listener; does not wait for the ones that answer with a Promise. */
  emit(event: T): void {
    void this.emitAndWait(event);
  }

  /**
   * Tells every listener and resolves once each has finished (a Promise a listener returns included), so an
   * action can apply what follows from it before it answers. Never rejects.
   */
  async emitAndWait(event: T): Promise<void> {
    await Promise.all(
      [...this.listeners].map(async (listener) => {
        try {
          await listener(event);
        } catch (err) {
          this.logger.error({ err }, `A ${this.what} listener failed`);
        }
      }),
    );
  }
}

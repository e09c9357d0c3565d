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

/**
 * A typed bus of several kinds of in-process events, one Listeners per kind: `M` maps each event's name to
 * its value. The one event mechanism of the service's features (IdentityEvents).
 */
export class EventBus<M extends object> {
  private readonly kinds = new Map<keyof M, Listeners<never>>();

  constructor(private readonly logger: Logger) {}

  /** Returns the function that removes the listener. */
  on<K extends keyof M>(name: K, listener: Listener<M[K]>): () => void {
    return this.listenersOf(name).add(listener);
  }

  /** Tells every listener of `name`; does not wait for the ones that answer with a Promise. */
  emit<K extends keyof M>(name: K, event: M[K]): void {
    this.listenersOf(name).emit(event);
  }

  /** Tells every listener of `name` and resolves once each has finished (see Listeners.emitAndWait). */
  emitAndWait<K extends keyof M>(name: K, event: M[K]): Promise<void> {
    return this.listenersOf(name).emitAndWait(event);
  }

  private listenersOf<K extends keyof M>(name: K): Listeners<M[K]> {
    let listeners = this.kinds.get(name) as Listeners<M[K]> | undefined;
    if (!listeners) {
      listeners = new Listeners<M[K]>(this.logger, String(name));
      this.kinds.set(name, listeners as unknown as Listeners<never>);
    }
    return listeners;
  }
}

import { Injectable, Logger } from '@nestjs/common';
import { Listeners } from './listeners';

/**
 * The process's shutdown phases (README, Production): `serving`; then `draining` on SIGTERM (still serving,
 * but /api/Ready answers 503 so a load balancer takes the node out, and every answer closes its connection);
 * then `closing` (no new connections: long-lived answers such as event streams end, in-flight requests
 * finish) before the modules' shutdown hooks flush what they hold. main.ts moves the phases; features react.
 */
@Injectable()
export class Lifecycle {
  private phase: 'serving' | 'draining' | 'closing' = 'serving';
  private readonly closingListeners = new Listeners<void>(new Logger('Lifecycle'), 'stop-accepting');

  /** True from SIGTERM on: not ready, answers close their connections. */
  get draining(): boolean {
    return this.phase !== 'serving';
  }

  startDraining(): void {
    if (this.phase === 'serving') this.phase = 'draining';
  }

  /** No new connections from now on: long-lived answers end so the server can close. */
  stopAccepting(): void {
    if (this.phase === 'closing') return;
    this.phase = 'closing';
    this.closingListeners.emit();
  }

  onStopAccepting(listener: () => void): () => void {
    return this.closingListeners.add(listener);
  }
}

/**
 * "At most once per window per address", in bounded memory (spec: UserLogout rule 1).
 *
 * A Map keeps insertion order; every admitted address is re-inserted, so the Map is ordered by the instant
 * each address was last admitted and the expired entries are always at its front. Each call first drops
 * expired entries from the front (amortised O(1)). When the Map is full of addresses still inside their
 * window, a NEW address is refused rather than an old one forgotten: forgetting would let that old address
 * be admitted twice within the window, and the rule is "at most once". A caller rotating addresses therefore
 * cannot grow the memory past `capacity`, nor write more than `capacity` rows per window.
 */
export class AddressWindow {
  private readonly lastAdmitted = new Map<string, number>();
  /** Addresses refused because the window was full of other addresses (since construction). */
  refusedForCapacity = 0;

  constructor(
    readonly windowMs: number,
    readonly capacity: number,
  ) {
    if (!(windowMs > 0) || !(capacity > 0))
      throw new Error('AddressWindow needs a positive window and capacity');
  }

  get size(): number {
    return this.lastAdmitted.size;
  }

  /** True when `address` may be recorded at `now` (ms); it is then remembered until now + window. */
  admit(address: string, now: number): boolean {
    this.evictExpired(now);
    const last = this.lastAdmitted.get(address);
    if (last !== undefined) {
      if (now - last < this.windowMs) return false;
      this.lastAdmitted.delete(address);
    } else if (this.lastAdmitted.size >= this.capacity) {
      this.refusedForCapacity++;
      return false;
    }
    this.lastAdmitted.set(address, now);
    return true;
  }

  private evictExpired(now: number): void {
    for (const [address, at] of this.lastAdmitted) {
      // A clock that went backwards leaves entries in place; they expire once time passes them again.
      if (now - at < this.windowMs) break;
      this.lastAdmitted.delete(address);
    }
  }
}

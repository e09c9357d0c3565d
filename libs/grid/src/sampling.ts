/**
 * Consistent sampling: a row belongs to the sample when a multiplicative hash of its Id and the seed falls
 * below the percentage. Rows, total and statistics are all computed from that same predicate, so they
 * describe ONE sample; the same seed gives the same sample. The same arithmetic runs in SQL and here.
 */
export const SAMPLE_MULTIPLIER = 2654435761n; // Knuth's multiplicative hash constant
export const SAMPLE_MODULUS = 4294967296n; // 2^32
export const SAMPLE_SEED_MAX = 2_147_483_647;
/** Ids are folded below 2^31 first, so Id × multiplier + seed stays inside a signed 64-bit integer. */
export const SAMPLE_ID_FOLD = 2147483648;

/** Threshold in [0, 2^32]: include when hash < threshold. */
export function sampleThreshold(percentage: number): number {
  return Math.round((percentage / 100) * Number(SAMPLE_MODULUS));
}

/**
 * The seed becomes a full-width 32-bit offset (its own multiplicative hash), so different seeds rotate the
 * sequence far apart and select clearly different rows. Bound as the SQL parameter.
 */
export function sampleOffset(seed: number): number {
  return Number((BigInt(seed) * 2246822519n) % SAMPLE_MODULUS);
}

export function sampleHash(id: number, seed: number): number {
  return Number(
    (BigInt(id % SAMPLE_ID_FOLD) * SAMPLE_MULTIPLIER + BigInt(sampleOffset(seed))) % SAMPLE_MODULUS,
  );
}

export function inSample(id: number, seed: number, percentage: number): boolean {
  return sampleHash(id, seed) < sampleThreshold(percentage);
}

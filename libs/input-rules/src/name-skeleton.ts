import { createHash } from 'node:crypto';
import unhomoglyph from 'unhomoglyph';

/**
 * The skeleton of a name (Unicode UTS #39, section 4), case-folded: NFKC and lower case, then NFD, every
 * character replaced by its prototype in Unicode's confusables table (the `unhomoglyph` package), NFD again,
 * lower case again (a prototype may be a capital). Two names a reader cannot tell apart (`Administrator`,
 * `Admınistrator` with a dotless ı, `Аdministrator` with a Cyrillic А, `ADMINISTRATOR`) have one skeleton.
 * Never shown: `m` and `rn` have one skeleton too, on purpose.
 */
export function nameSkeleton(name: string): string {
  const folded = name.trim().normalize('NFKC').toLowerCase().normalize('NFD');
  return unhomoglyph(folded).normalize('NFD').toLowerCase();
}

/** What UserRegistry.NameSkeleton holds: SHA-256 (hex) of the skeleton, a fixed 64 characters whatever the name. */
export function nameSkeletonKey(name: string): string {
  return createHash('sha256').update(nameSkeleton(name), 'utf8').digest('hex');
}

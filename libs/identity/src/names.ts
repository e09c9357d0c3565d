/** Key of case-insensitive user-name uniqueness and sign-in look-ups. */
export function normalizeUserName(name: string): string {
  return name.normalize('NFKC').toLowerCase();
}

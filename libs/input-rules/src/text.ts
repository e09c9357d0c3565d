// C0 controls, DEL and C1 controls; includes CR, LF, NUL and the ESC that starts ANSI sequences. With the
// u flag, the surrogate range matches only a surrogate that is not half of a pair (not storable as UTF-8).
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\uD800-\uDFFF]/gu;

/**
 * Makes untrusted text safe to store and show: control characters and lone surrogates become U+FFFD and
 * the result is cut to `maxLength` UTF-16 units without splitting a surrogate pair (spec: UserLogout rule
 * 2; the audit columns are the one place the service alters text rather than refuse it).
 */
export function inertText(value: string | null | undefined, maxLength: number): string | null {
  if (value === null || value === undefined) return null;
  let s = value.length > maxLength * 2 ? value.slice(0, maxLength * 2) : value;
  s = s.replace(CONTROL_CHARACTERS, '\uFFFD');
  if (s.length > maxLength) {
    s = s.slice(0, maxLength);
    const last = s.charCodeAt(s.length - 1);
    if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
  }
  return s;
}

const TOKEN = /\{([A-Za-z_][A-Za-z0-9_]{0,127})\}/g;

/**
 * Fills `{FieldName}` tokens from the values; a token with no value is left as written, so a mistyped
 * name shows in the message instead of vanishing. `encode` escapes each value (URL templates).
 */
export function fillTemplate(
  template: string,
  values: Readonly<Record<string, unknown>>,
  encode: (value: string) => string = (v) => v,
): string {
  return template.replace(TOKEN, (whole, name: string) => {
    if (!Object.prototype.hasOwnProperty.call(values, name)) return whole;
    const v = values[name];
    if (v === null || v === undefined) return '';
    const text =
      typeof v === 'string'
        ? v
        : typeof v === 'number' || typeof v === 'boolean'
          ? String(v)
          : JSON.stringify(v);
    return encode(text);
  });
}

/** One line: CR, LF and other controls removed (no header injection through a field value). */
export function singleLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

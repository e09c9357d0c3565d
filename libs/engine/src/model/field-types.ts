import { FieldDataType } from '../entities';

export type FieldValue = string | number | boolean | null;

/** Converts a value read from the request to the field's data type; undefined when it cannot. */
export function convertField(value: unknown, type: FieldDataType): FieldValue | undefined {
  if (value === null) return null;
  switch (type) {
    case FieldDataType.String:
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return undefined;
    case FieldDataType.Integer: {
      const n = typeof value === 'string' && /^-?\d{1,16}$/.test(value.trim()) ? Number(value) : value;
      return typeof n === 'number' && Number.isSafeInteger(n) ? n : undefined;
    }
    case FieldDataType.Float: {
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
      return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
    }
    case FieldDataType.Boolean:
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'True') return true;
      if (value === 'false' || value === 'False') return false;
      return undefined;
    case FieldDataType.DateTime: {
      if (typeof value !== 'string' && typeof value !== 'number') return undefined;
      if (typeof value === 'string' && !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+)?(Z|[+-]\d{2}:?\d{2})?$/.test(value))
        return undefined;
      const d = new Date(value);
      return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
    }
    default:
      return undefined;
  }
}

export const FIELD_DATA_TYPE_NAMES: Readonly<Record<FieldDataType, string>> = {
  [FieldDataType.String]: 'String',
  [FieldDataType.Integer]: 'Integer',
  [FieldDataType.Float]: 'Float',
  [FieldDataType.Boolean]: 'Boolean',
  [FieldDataType.DateTime]: 'DateTime',
};

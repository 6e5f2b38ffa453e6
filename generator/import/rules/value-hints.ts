import type { AttributeType, ValueHints } from '../../er-model/er-model.ts';
import { MODEL_LIMITS } from '../../er-model/validate-domain.ts';
import type { ColumnProfile } from '../catalog.ts';

const INT_BOUND = 2_147_483_647;

/**
 * Rule `value-hints`: what the rows say about a column, as hints for the generator: the
 * range of numbers and dates, the share of NULLs, a pool of text values where few repeat,
 * and uniqueness where no two rows share a value.
 *
 * @example valueHints({ kind: 'integer' }, { rows: 10, nulls: 2, distinct: 8, min: '1', max: '9' }, true, undefined)
 * // { min: 1, max: 9, nullRate: 0.2 }
 */
export function valueHints(
  type: AttributeType,
  profile: ColumnProfile | undefined,
  optional: boolean,
  pool: readonly string[] | undefined,
): ValueHints | undefined {
  if (!profile || profile.rows === 0) return undefined;
  const hints: { -readonly [K in keyof ValueHints]: ValueHints[K] } = {};
  const { min, max } = profile;
  if (min !== undefined && max !== undefined) {
    if (type.kind === 'integer' || type.kind === 'bigint' || type.kind === 'numeric') {
      const lo = Number(min);
      const hi = Number(max);
      const bound = type.kind === 'integer' ? INT_BOUND : MODEL_LIMITS.numericBound;
      const fits =
        type.kind !== 'numeric' ||
        (Math.abs(lo) < 10 ** (type.precision - type.scale) && Math.abs(hi) < 10 ** (type.precision - type.scale));
      if (Number.isFinite(lo) && Number.isFinite(hi) && Math.abs(lo) <= bound && Math.abs(hi) <= bound && fits) {
        hints.min = type.kind === 'numeric' ? lo : Math.trunc(lo);
        hints.max = type.kind === 'numeric' ? hi : Math.trunc(hi);
      }
    } else if (type.kind === 'date' || type.kind === 'timestamptz') {
      const lo = /^\d{4}-\d{2}-\d{2}/u.exec(min)?.[0];
      const hi = /^\d{4}-\d{2}-\d{2}/u.exec(max)?.[0];
      if (lo && hi) {
        hints.min = lo;
        hints.max = hi;
      }
    }
  }
  if (optional) hints.nullRate = Math.round((profile.nulls / profile.rows) * 1000) / 1000;
  if (type.kind === 'text' && pool && pool.length > 0) hints.pool = pool;
  else if (
    type.kind !== 'boolean' &&
    type.kind !== 'enum' &&
    profile.rows > 1 &&
    profile.distinct === profile.rows - profile.nulls &&
    profile.nulls === 0
  )
    hints.unique = true;
  return Object.keys(hints).length > 0 ? hints : undefined;
}

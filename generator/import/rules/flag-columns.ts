import type { CatalogTable } from '../catalog.ts';

/** A class kept in its parent's table as a boolean flag column: the flag, its parent flag, and the columns it governs. */
export interface FlagClass {
  readonly flag: string;
  /** The flag of the class it is a kind of, when a CHECK says so; else it is a kind of the table's class. */
  readonly parentFlag?: string;
  readonly columns: readonly string[];
}

/**
 * Rule `flag-column` (overlapping classes in one table): a required boolean column is a
 * class's membership flag when the table's CHECKs treat it as one: a column holds a value
 * exactly on the flagged rows (`flag = (c IS NOT NULL)`) or only on them (`flag OR c IS
 * NULL`), or the flag implies another (`NOT flag OR other`: a kind of the other's class).
 * A boolean no CHECK speaks of is an attribute. Parents come before their children.
 *
 * @example is_member with CHECK ((is_member = (joined_on IS NOT NULL))) is a class Member owning joined_on
 */
export function detectFlagClasses(table: CatalogTable): FlagClass[] {
  const bodies = table.checks.map((c) =>
    c.expression
      .trim()
      .replace(/^CHECK\s*/iu, '')
      .replace(/\s+/gu, ' ')
      .replace(/"/gu, ''),
  );
  const booleans = table.columns.filter((c) => c.type.kind === 'boolean' && !c.nullable).map((c) => c.name);
  const found = new Map<string, { parentFlag?: string; columns: string[] }>();
  for (const flag of booleans) {
    const f = escape(flag);
    const columns: string[] = [];
    let parentFlag: string | undefined;
    for (const body of bodies) {
      const tied =
        new RegExp(`^\\(*${f} = \\((\\w+) IS NOT NULL\\)\\)*$`, 'u').exec(body) ??
        new RegExp(`^\\(*${f} OR \\((\\w+) IS NULL\\)\\)*$`, 'u').exec(body);
      if (tied && tied[1] !== flag && table.columns.some((c) => c.name === tied[1] && c.nullable))
        columns.push(tied[1] as string);
      const implies = new RegExp(`^\\(*NOT ${f}\\) OR (\\w+)\\)*$`, 'u').exec(body);
      if (implies && booleans.includes(implies[1] as string) && implies[1] !== flag) parentFlag = implies[1];
    }
    if (columns.length > 0 || parentFlag !== undefined)
      found.set(flag, { ...(parentFlag !== undefined ? { parentFlag } : {}), columns });
  }
  // A flag another flag implies is a class too, though it may govern no column of its own.
  for (const { parentFlag } of [...found.values()])
    if (parentFlag !== undefined && !found.has(parentFlag)) found.set(parentFlag, { columns: [] });
  const out: FlagClass[] = [];
  const depth = (flag: string, seen = new Set<string>()): number => {
    const p = found.get(flag)?.parentFlag;
    if (p === undefined || seen.has(flag)) return 0;
    seen.add(flag);
    return 1 + depth(p, seen);
  };
  for (const flag of [...found.keys()].sort((a, b) => depth(a) - depth(b))) {
    const f = found.get(flag) as { parentFlag?: string; columns: string[] };
    out.push({ flag, ...(f.parentFlag !== undefined ? { parentFlag: f.parentFlag } : {}), columns: f.columns });
  }
  return out;
}

const escape = (name: string): string => name.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

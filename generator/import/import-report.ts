import type { Draft } from './draft-model.ts';
import type { Catalog } from './catalog.ts';

/**
 * The import report: what was read, then one line per finding, grouped as the model took
 * them and as it left them out; lines worth a person's look end in "(review)".
 *
 * @example importReport(draft, catalog, 'READ ONLY …')
 * // '# Import of postgres://…/pagila\n\n…\n- link-table film_actor: many-to-many relationship film_actor: Actor ↔ Film\n…'
 */
export function importReport(draft: Draft, catalog: Catalog, safety: string): string {
  const inferred = draft.findings.filter((f) => f.rule !== 'left-out' && f.rule !== 'audit-column');
  const omitted = draft.findings.filter((f) => f.rule === 'left-out' || f.rule === 'audit-column');
  const line = (f: Draft['findings'][number]): string =>
    `- ${f.rule} ${f.subject}: ${f.text}${f.review ? ' (review)' : ''}`;
  return [
    `# Import of ${catalog.source}`,
    '',
    `${catalog.engine === 'postgres' ? `Schema ${catalog.schema}, ` : ''}${catalog.tables.length} tables, ${safety}.`,
    `Draft model ${draft.domain.name}: ${draft.domain.entities.length} entities, ${draft.domain.relationships.length} relationships; ${draft.findings.filter((f) => f.review).length} lines to review.`,
    '',
    '## Inferred',
    '',
    ...inferred.map(line),
    '',
    '## Left out',
    '',
    ...(omitted.length > 0 ? omitted.map(line) : ['- nothing']),
    '',
  ].join('\n');
}

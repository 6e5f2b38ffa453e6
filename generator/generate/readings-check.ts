/**
 * Questions with one reading: each choice the natural question leaves to the register's
 * defaults is made the other way (questions/readings.ts), compiled for the reference
 * variant and run on the main and edge instances through the group checks' runner (so an
 * answer asked before comes from memory). A reading whose answer differs from the gold's on
 * some instance makes the question ambiguous, and the candidate is rejected as
 * `ambiguous:<choice>`.
 */
import type { Query } from '../query/conceptual-query.ts';
import { isOrdered } from '../query/conceptual-query.ts';
import { compileSql } from '../compile/compile-query.ts';
import type { CompiledSql } from '../compile/compiled-sql.ts';
import { normalizeResult } from '../execute/run-query.ts';
import { writeNaturalQuestion } from '../questions/natural/natural-writer.ts';
import { otherReadings, type Reading } from '../questions/readings.ts';
import { CandidateRejected, reject } from '../records/group-record.ts';
import type { CheckContext, CheckVariant, VerifiedGroup } from './group-checks.ts';

/** A reading that answers otherwise, and on which instance it was seen first. */
export interface DifferingReading {
  readonly reading: Reading;
  readonly instance: 'main' | 'edge';
}

/**
 * The other readings of the natural question of `query` (written as the questions stage
 * writes it, seeded by the group id) whose answer differs from the gold's `verified` answers.
 * A reading that does not compile or run is no reading a reader could check, and is passed.
 *
 * @example
 * await differingReadings(query, groupId, verified, ctx);
 * // [{ reading: { choice: 'grouping', detail: 'grouped by title instead of l.id', … }, instance: 'main' }]
 */
export async function differingReadings(
  query: Query,
  groupId: string,
  verified: Pick<VerifiedGroup, 'main' | 'edge'>,
  ctx: CheckContext,
): Promise<DifferingReading[]> {
  const written = writeNaturalQuestion(ctx.index, query, 0, groupId);
  return answeringOtherwise(
    otherReadings(ctx.index, query, new Set([...written.covered, ...written.stated])),
    verified,
    ctx,
  );
}

/** The readings among `readings` whose answer on the reference variant differs from the gold's on the main or edge instance. */
export async function answeringOtherwise(
  readings: readonly Reading[],
  verified: Pick<VerifiedGroup, 'main' | 'edge'>,
  ctx: CheckContext,
): Promise<DifferingReading[]> {
  if (readings.length === 0) return [];
  const reference = ctx.variants.find((v) => v.name === ctx.reference) ?? (ctx.variants[0] as CheckVariant);
  const out: DifferingReading[] = [];
  for (const reading of readings) {
    const instances = [
      ['main', reference.pgSchemas.main, verified.main.result_hash] as const,
      ...(verified.edge && reference.pgSchemas.edge
        ? [['edge', reference.pgSchemas.edge, verified.edge.result_hash] as const]
        : []),
    ];
    for (const [instance, pgSchema, gold] of instances) {
      const hash = await answerHash(reading.query, pgSchema, ctx, reference);
      if (hash !== undefined && hash !== gold) {
        out.push({ reading, instance });
        break;
      }
    }
  }
  return out;
}

/** Throws `ambiguous:<choice>` for the first reading whose answer differs from the gold's. */
export async function rejectAmbiguous(
  query: Query,
  groupId: string,
  verified: VerifiedGroup,
  ctx: CheckContext,
): Promise<void> {
  const [first, ...rest] = await differingReadings(query, groupId, verified, ctx);
  if (first)
    reject(
      `ambiguous:${first.reading.choice}`,
      `${first.instance} instance: ${first.reading.detail}${rest.length > 0 ? ` (and ${rest.length} more)` : ''}`,
    );
}

async function answerHash(
  query: Query,
  pgSchema: string,
  ctx: CheckContext,
  reference: CheckVariant,
): Promise<string | undefined> {
  let sql: CompiledSql;
  try {
    sql = compileSql(ctx.index, reference.schema, query);
  } catch {
    // The gold compiled: a reading the compiler refuses is no query a reader's SQL would match.
    return undefined;
  }
  try {
    return normalizeResult(await ctx.runner.run(pgSchema, sql), isOrdered(query)).hash;
  } catch (error) {
    if (error instanceof CandidateRejected) return undefined;
    throw error;
  }
}

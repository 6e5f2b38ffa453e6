import type { Join, SelectQuery } from '../../query/conceptual-query.ts';
import { elementLexicon, mention, note, type DescribeContext, type Handlers } from './context.ts';
import { article, capitalize, isPostmodifier } from './english.ts';
import { info, noun, ref, related, scoped } from './nouns.ts';
import { predicate } from './predicates.ts';

interface JoinCtx {
  readonly d: DescribeContext;
  /** Inside a subquery: joins ask for a partner rather than pair rows. */
  readonly sub: boolean;
  readonly parts: string[];
  readonly post: string[];
}

/** How each kind of join extends the rows: a clause after the base, or (a correlated back link) a postmodifier of it. */
const joinHandlers: Handlers<Join, JoinCtx, void> = {
  relationship: (j, ctx) => {
    const { d } = ctx;
    if (d.aliases.get(j.alias)?.sameAs) {
      // Correlated back link: a postmodifier of the base ("content item produced by the creator").
      const rel = d.index.relationship(j.relationship);
      const phrase = j.direction === 'forward' ? rel.lexicon.forward : rel.lexicon.reverse;
      ctx.post.push(isPostmodifier(phrase) ? `${phrase} ${ref(d, j.alias)}` : `that ${phrase} ${ref(d, j.alias)}`);
      d.covered.add('correlation');
      return;
    }
    const on = j.on ? ` such that ${predicate(d, j.on)}` : '';
    if (ctx.sub) {
      // Inside a subquery a join asks for a partner: "with a channel owned by the creator".
      ctx.parts.push(`with ${related(d, j, false, 'a')}${on}${j.type === 'left' ? ' or with none' : ''}`);
      if (j.type === 'left') mention(d, 'left-join', ['or with none']);
      return;
    }
    const np = related(d, j, false, 'each');
    if (j.type === 'left') {
      const owner = noun(d, j.from);
      if (d.conventions === 'evidence') {
        ctx.parts.push(`with ${np}${on}, if any`);
        note(
          d,
          `${capitalize(article(owner))} without any ${noun(d, j.alias)} is kept once, with no ${noun(d, j.alias)}.`,
          'left-join',
        );
      } else
        ctx.parts.push(
          `with ${np}${on}, or with none (${article(owner)} without such ${article(noun(d, j.alias))} is kept once, with no ${noun(d, j.alias)})`,
        );
      mention(d, 'left-join', ['kept once'], ['with none']);
    } else {
      ctx.parts.push(`with ${np}${on}`);
      d.covered.add('inner-join');
    }
  },
  elements: (j, ctx) => {
    const { d } = ctx;
    const lex = elementLexicon(info(d, j.alias));
    if (j.type === 'left') {
      ctx.parts.push(
        `with each of the ${lex.plural} of ${ref(d, j.of)}, or with none when it has none (kept once, with no ${lex.singular})`,
      );
      mention(d, 'left-elements', ['kept once']);
    } else {
      ctx.parts.push(
        `${ctx.sub ? 'taking each' : 'with each'} of the ${lex.plural} of ${ref(d, j.of)} (one row per ${lex.singular})`,
      );
      mention(d, 'elements', ['one row per']);
    }
  },
};

/** The rows of a select: its base and joins. */
export function rows(d: DescribeContext, q: SelectQuery, sub = false): string {
  const ctx: JoinCtx = { d, sub, parts: [scoped(d, q.from.entity, 'every', q.from.alias)], post: [] };
  for (const j of q.joins ?? []) (joinHandlers[j.kind] as (node: Join, c: JoinCtx) => void)(j, ctx);
  const base = ctx.post.length > 0 ? `${ctx.parts[0]} ${ctx.post.join(' and ')}` : (ctx.parts[0] as string);
  return [base, ...ctx.parts.slice(1)].join(', ');
}

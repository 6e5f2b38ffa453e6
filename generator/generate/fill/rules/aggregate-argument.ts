/**
 * aggregate-argument, as the filler proposes it: AVG, MIN and MAX of quantities (MIN and MAX
 * of dates too, where the filler takes dates), COUNT(DISTINCT …) of what sorts or
 * identifies objects and may repeat: the number of different emails, each an account's own,
 * is the number of accounts, which a count of the accounts says.
 */
import type { Attribute, AttributeRole } from '../../../er-model/er-model.ts';

export function averageable(role: AttributeRole | undefined): boolean {
  return role?.kind === 'measure' || role?.kind === 'count' || role?.kind === 'score';
}

export function distinctCountable(role: AttributeRole | undefined, attribute?: Attribute): boolean {
  if (attribute?.hints?.unique === true) return false;
  // Names repeat by chance ("the number of different first names of customers"): a person
  // counts the different kinds of something, or the objects themselves.
  return role !== undefined && ['identifier', 'category', 'contact'].includes(role.kind);
}

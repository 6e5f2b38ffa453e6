/**
 * The phrases reviewers named as giving machine-written questions away; none may occur in a
 * natural question (evidence excluded). `npm run question-stats` counts them, and the template test checks every natural question.
 */
export const MACHINE_PHRASES: readonly RegExp[] = [
  /\bpaired with each\b/iu,
  /\bas a single row\b/iu,
  /\(in this order\)/iu,
  /\bof any kind\b/iu,
  /\bfor every \w+(?: \w+)?, /iu,
  /\bcounting only the (eligible|selected|relevant|qualifying|targeted|flagged) ones\b/iu,
  /\bone row for each value of\b/iu,
  /\bthe number of \w+(?: \w+)?–\w+(?: \w+)? pairs\b/iu,
  /^What about\b/iu,
  /\bA row appears as many times as\b/iu,
];

/** The machine phrases found in a question. */
export function machinePhrases(text: string): string[] {
  return MACHINE_PHRASES.filter((re) => re.test(text)).map((re) => re.source);
}

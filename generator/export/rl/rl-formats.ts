/** The reinforcement-learning export formats by name; kept apart from the writers so a flag check reads it without loading Parquet. */
export const RL_FORMATS = ['verl', 'trl-grpo', 'openrlhf'] as const;
export type RlFormat = (typeof RL_FORMATS)[number];

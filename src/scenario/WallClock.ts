/**
 * Real time for the scenario runner's webhook receiver, which stands in for a partner's server: like the
 * reference handler it checks a signature's `t` (the wall-clock time of the attempt, whatever the sandbox clock
 * says) against its own clock (the only wall-clock read in src/scenario).
 */
export const wallNowMs = (): number => Date.now()

/**
 * Real time for the scenario runner's webhook receiver, which stands in for a partner's server: like the
 * reference handler it checks a signature's `t` against its own clock, here shifted by the service clock's
 * sandbox offset (the only wall-clock read in src/scenario).
 */
export const wallNowMs = (): number => Date.now()

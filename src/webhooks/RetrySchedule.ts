/** docs/contract.md "Delivery rules" 2-4: eight attempts, then DEAD; 410 is DEAD at once. */
export const attemptsMax = 8

/** The delay before attempts 2..8, measured from the previous attempt on the service clock. */
export const retryDelaysSeconds = [30, 120, 600, 1800, 7_200, 21_600, 43_200] as const

/** Seconds until the next attempt after the `attempt`-th failure of a round (1-based), or undefined when none is left. */
export const delayAfterFailure = (attempt: number): number | undefined =>
  attempt >= attemptsMax ? undefined : retryDelaysSeconds[attempt - 1]

/** `FAULTS=full` (npm run test:faults) runs every fault in full; otherwise the CI variant runs. */
export const FULL = process.env.FAULTS === 'full';

/**
 * Orders offered per second while a fault runs. The full suite runs at 100/s, so a crash, a
 * rebalance or a Postgres restart hits consumer transactions carrying whole batches; the CI
 * variant, whose files run two at a time next to the rest of the test suite on two cores, at 30/s.
 * `FAULTS_RATE` overrides both.
 */
export const LOAD_RATE_PER_SECOND = Number(process.env.FAULTS_RATE ?? (FULL ? 100 : 30));

/** A number of orders that takes `seconds` to place at the suite's rate. */
export const ordersFor = (seconds: number): number => Math.max(1, Math.round(seconds * LOAD_RATE_PER_SECOND));

/** `FAULTS=full` (npm run test:faults) runs every fault in full; otherwise the CI variant runs. */
export const FULL = process.env.FAULTS === 'full';

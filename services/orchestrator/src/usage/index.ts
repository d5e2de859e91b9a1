/** A run's model usage: the ledger of its steps' token counts. */
export { createRunUsageLedger } from './run-usage-ledger';
export type { RunUsageLedger, RunUsageLedgerOptions } from './run-usage-ledger';

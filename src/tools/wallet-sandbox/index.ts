// The reference wallet sandbox: a real HTTP server implementing the operator side of spec 4.3
// (docs/wallet-sandbox.md). Used by operators to see a correct wallet, and by our tests.
export { startWalletSandbox } from './server.ts';
export { SANDBOX_CODES, type SandboxCode } from './codes.ts';
export { BREAK_MODES, TRANSACTION_OPS } from './types.ts';
export { SCHEMA_NAME } from './pg-store.ts';
export type {
  Balances, BreakMode, FaultSpec, RecordedRequest, SandboxAuth, SandboxOp, SandboxOptions, SeededBet, TransactionOp, WalletSandbox,
} from './types.ts';

// Scripted faults (WalletSandbox.injectFaults): each matching call consumes one, in order.
import type { FaultSpec, SandboxOp } from './types.ts';
import { TRANSACTION_OPS } from './types.ts';

export interface FaultQueue {
  add(faults: FaultSpec[]): void;
  /** The fault the next call to `op` must suffer, if any (consumes one of its `times`). */
  take(op: string): FaultSpec | undefined;
}

function matches(fault: FaultSpec, op: string): boolean {
  if (fault.op) return fault.op === op;
  return (TRANSACTION_OPS as readonly string[]).includes(op);
}

export function createFaultQueue(): FaultQueue {
  const queue: Array<{ fault: FaultSpec; left: number }> = [];
  return {
    add(faults) {
      for (const fault of faults) {
        const times = fault.times ?? 1;
        if (!Number.isInteger(times) || times < 1) throw new Error('fault.times must be a positive integer');
        queue.push({ fault, left: times });
      }
    },
    take(op) {
      const index = queue.findIndex((entry) => matches(entry.fault, op as SandboxOp));
      if (index < 0) return undefined;
      const entry = queue[index]!;
      entry.left -= 1;
      if (entry.left === 0) queue.splice(index, 1);
      return entry.fault;
    },
  };
}

// betMetadata of confirm (docs/wallet.md, Request bodies), typed so that callers get the field names and casing of the
// spec at compile time, and checked at enqueue so that a wrongly typed field is refused before it
// is committed to the outbox rather than parked later by the operator's wallet. The rules match
// the reference wallet sandbox: `id` (the bet's UUID) and `legs` are required, every other field
// of 2.5 is type-checked when present, and unknown fields pass (spec 2.4: extra fields allowed).
import { AppError } from '../errors.ts';
import { isObject } from '../racing/values.ts';

export interface BetSelection {
  statusId?: number;
  fixedOdds?: number;
  margin?: number;
  position?: number;
  selectionId?: string[];
  lineTypeId?: number;
  line?: number;
}

export interface BetLeg {
  betTypeId?: number;
  eventId?: string;
  productKeyword?: string;
  processedDividend?: number;
  legType?: string;
  marketId?: string | null;
  selection?: BetSelection[];
}

export interface BetMetadata {
  id: string;
  ticketId?: string;
  tenantId?: string;
  userId?: string;
  betTypeId?: number;
  statusId?: number;
  /** ISO 8601 UTC timestamp. */
  createdAt?: string;
  amount?: number;
  fixedOdds?: number;
  percentage?: number;
  legs: BetLeg[];
}

/** The JSON kinds the wire protocol's fields take. */
export type ValueKind = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'string|null';
type Kind = ValueKind;

/** The field types of spec 2.5 (betMetadata, its legs, their selections); the sandbox checks the same. */
export const BET_METADATA_SHAPE: Record<string, Kind> = {
  id: 'string', ticketId: 'string', tenantId: 'string', userId: 'string', betTypeId: 'integer', statusId: 'integer',
  createdAt: 'string', amount: 'number', fixedOdds: 'number', percentage: 'number', legs: 'array',
};
export const LEG_SHAPE: Record<string, Kind> = {
  betTypeId: 'integer', eventId: 'string', productKeyword: 'string', processedDividend: 'number', legType: 'string',
  marketId: 'string|null', selection: 'array',
};
export const SELECTION_SHAPE: Record<string, Kind> = {
  statusId: 'integer', fixedOdds: 'number', margin: 'number', position: 'integer', selectionId: 'array', lineTypeId: 'integer', line: 'number',
};

/** Whether a JSON value is of the kind (finite numbers only; an integer is a number without fraction). */
export function isOfKind(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string': return typeof value === 'string';
    case 'string|null': return value === null || typeof value === 'string';
    case 'integer': return Number.isInteger(value);
    case 'number': return typeof value === 'number' && Number.isFinite(value);
    case 'boolean': return typeof value === 'boolean';
    case 'object': return isObject(value);
    case 'array': return Array.isArray(value);
  }
}



/**
 * How a problem is worded: the caller cites the spec and checks types first; the wallet sandbox
 * answers as an operator's wallet would (required fields first, no spec references).
 */
export interface ProblemStyle {
  /** The bet the call is for: betMetadata.id must be it (the caller's check). */
  betId?: string;
  wallet?: boolean;
}

const kindText = (kind: Kind, wallet: boolean) => (kind === 'integer' ? 'an integer' : kind === 'string|null' && !wallet ? 'a string or null' : `a ${kind}`);

/** The first field of `value` that is missing (`required`) or not of the kind `shape` gives it; undefined when none. */
export function shapeProblem(value: unknown, where: string, shape: Record<string, Kind>, style: ProblemStyle, required: string[] = []): string | undefined {
  if (!isObject(value)) return `${where} must be an object`;
  const cite = style.wallet ? '' : ' (docs/wallet.md, Request bodies)';
  for (const name of required) if (value[name] === undefined) return `${where}.${name} is required`;
  for (const [name, kind] of Object.entries(shape)) {
    const field = value[name];
    if (field !== undefined && !isOfKind(field, kind)) return `${where}.${name} must be ${kindText(kind, style.wallet === true)}${cite}`;
  }
  return undefined;
}

/** The first problem of a confirm's betMetadata against spec 2.5, or undefined when it has none. */
export function betMetadataProblem(value: unknown, style: ProblemStyle = {}): string | undefined {
  const top = shapeProblem(value, 'betMetadata', BET_METADATA_SHAPE, style, style.wallet ? ['id', 'legs'] : []);
  if (top) return top;
  const meta = value as Record<string, unknown>;
  if (typeof meta.id !== 'string') return 'betMetadata.id (the bet UUID) is required (docs/wallet.md, Request bodies)';
  if (style.betId !== undefined && meta.id.toLowerCase() !== style.betId.toLowerCase()) return `betMetadata.id must be the bet's id ${style.betId}, got ${JSON.stringify(meta.id)}`;
  if (!Array.isArray(meta.legs)) return 'betMetadata.legs (an array) is required (docs/wallet.md, Request bodies)';
  for (const [i, leg] of meta.legs.entries()) {
    const problem = shapeProblem(leg, `betMetadata.legs[${i}]`, LEG_SHAPE, style);
    if (problem) return problem;
    for (const [j, sel] of (((leg as { selection?: unknown[] }).selection) ?? []).entries()) {
      const where = `betMetadata.legs[${i}].selection[${j}]`;
      const p = shapeProblem(sel, where, SELECTION_SHAPE, style);
      if (p) return p;
      const ids = (sel as { selectionId?: unknown[] }).selectionId;
      if (ids && !ids.every((id) => typeof id === 'string')) return `${where}.selectionId must be an array of strings${style.wallet ? '' : ' (docs/wallet.md, Request bodies)'}`;
    }
  }
  return undefined;
}

/** Checks a confirm's betMetadata against spec 2.5; `betId` is the bet the call is for. */
export function validateBetMetadata(value: unknown, betId: string | undefined): BetMetadata {
  const problem = betMetadataProblem(value, betId === undefined ? {} : { betId });
  if (problem) throw new AppError('bad_request', problem);
  return value as BetMetadata;
}

// betMetadata rules as each side words them, pinned message by message: the caller (cites the
// spec, checks types first, and that the id is the bet's) and the wallet sandbox (required fields
// first, no spec references), so sharing the rules changed neither side's answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { betMetadataProblem } from './bet-metadata.ts';

const BET = '6f1c7a52-2b0e-4d34-9a57-3c2f3b0f9d11';
const ok = { id: BET, legs: [{ betTypeId: 1, marketId: null, selection: [{ position: 1, selectionId: ['a'] }] }], extra: true };

test('the caller\'s wording', () => {
  const cases: Array<[unknown, string | undefined]> = [
    [ok, undefined],
    ['x', 'betMetadata must be an object'],
    [{ id: 5 }, 'betMetadata.id must be a string (docs/wallet.md, Request bodies)'],
    [{ legs: [] }, 'betMetadata.id (the bet UUID) is required (docs/wallet.md, Request bodies)'],
    [{ id: 'other', legs: [] }, `betMetadata.id must be the bet's id ${BET}, got "other"`],
    [{ id: BET }, 'betMetadata.legs (an array) is required (docs/wallet.md, Request bodies)'],
    [{ id: BET, legs: [{ marketId: 3 }] }, 'betMetadata.legs[0].marketId must be a string or null (docs/wallet.md, Request bodies)'],
    [{ id: BET, legs: [{ selection: [{ selectionId: [7] }] }] }, 'betMetadata.legs[0].selection[0].selectionId must be an array of strings (docs/wallet.md, Request bodies)'],
  ];
  for (const [value, expected] of cases) assert.equal(betMetadataProblem(value, { betId: BET }), expected, JSON.stringify(value));
});

test('the wallet sandbox\'s wording', () => {
  const cases: Array<[unknown, string | undefined]> = [
    [ok, undefined],
    [{ id: 5 }, 'betMetadata.legs is required'],
    [{ legs: [] }, 'betMetadata.id is required'],
    [{ id: 'any id', legs: [] }, undefined],
    [{ id: BET, legs: [{ marketId: 3 }] }, 'betMetadata.legs[0].marketId must be a string|null'],
    [{ id: BET, legs: [{ betTypeId: 1.5 }] }, 'betMetadata.legs[0].betTypeId must be an integer'],
    [{ id: BET, legs: [{ selection: [{ selectionId: [7] }] }] }, 'betMetadata.legs[0].selection[0].selectionId must be an array of strings'],
  ];
  for (const [value, expected] of cases) assert.equal(betMetadataProblem(value, { wallet: true }), expected, JSON.stringify(value));
});

/**
 * Named transaction items (issue 26): a cancelled DynamoDB transaction's reasons come back by position, and
 * failedWrites turns them into the names of the writes whose condition failed, counting only the writes sent (an
 * absent one, such as a condition left out, shifts nothing). test/contract/dynamodb.test.ts proves each outcome of
 * putMessage and createInbox on DynamoDB Local.
 */
import { failedWrites, type NamedWrites } from '../../lambdas/store/dynamo-items';

const cancelled = (...codes: string[]) =>
  Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });

const write = (key: string) => ({ ConditionCheck: { Key: { pk: key }, ConditionExpression: 'attribute_exists(pk)' } });

it('names the writes whose condition failed', () => {
  const writes: NamedWrites<'message' | 'inbox' | 'usage'> = { message: write('m'), inbox: write('i'), usage: write('u') };
  expect(failedWrites(cancelled('None', 'ConditionalCheckFailed', 'None'), writes)).toEqual(new Set(['inbox']));
  expect(failedWrites(cancelled('ConditionalCheckFailed', 'None', 'ConditionalCheckFailed'), writes)).toEqual(new Set(['message', 'usage']));
  expect(failedWrites(cancelled('None', 'TransactionConflict', 'None'), writes)).toEqual(new Set());
});

it('counts only the writes sent', () => {
  const writes: NamedWrites<'first' | 'skipped' | 'last'> = { first: write('f'), skipped: undefined, last: write('l') };
  expect(failedWrites(cancelled('None', 'ConditionalCheckFailed'), writes)).toEqual(new Set(['last']));
});

it('is null for an error that is not a cancelled transaction', () => {
  expect(failedWrites(Object.assign(new Error('x'), { name: 'ConditionalCheckFailedException' }), { a: write('a') })).toBeNull();
});

/**
 * What both DynamoDB adapters (dynamo-inbox-store.ts and the modules beside it, dynamo-webhook-store.ts) do with the one table's items,
 * stated once: read a Query or Scan page after page, write a transaction on the table, read why DynamoDB cancelled
 * one, and take the generic keys off an item before it leaves the adapter.
 */
import {
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type ScanCommandInput,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { guard } from './guard';

type Key = Record<string, unknown>;
/** The table an adapter works on: the document client and the table's name. */
export interface Table {
  readonly db: DynamoDBDocumentClient;
  readonly table: string;
}

/** One page of a Query or Scan: its items (none with Select COUNT), its count, and where the next would start. */
export interface ReadPage<T> {
  items: T[];
  count: number;
  next?: Key;
}

/** A read's input without its start key: fixed, or made before each page (a Limit that shrinks as items arrive). */
type PerPage<I> = Omit<I, 'ExclusiveStartKey'> | (() => Omit<I, 'ExclusiveStartKey'>);

/**
 * Every page of a Query (`query`) or Scan (`scan`) on the table, from `start` on, following LastEvaluatedKey: a call
 * reads at most 1 MB (counted before any filter or projection). The caller stops iterating when it has enough, and
 * names the items' type (`T`: what its projection reads).
 */
export async function* readPages<T = Record<string, unknown>>(
  db: DynamoDBDocumentClient,
  read: { query: PerPage<QueryCommandInput> } | { scan: PerPage<ScanCommandInput> },
  start?: Key,
): AsyncGenerator<ReadPage<T>> {
  const input = <I>(given: PerPage<I>) => (typeof given === 'function' ? given() : given);
  let next = start;
  do {
    const out = await guard('DynamoDB', () =>
      'query' in read
        ? db.send(new QueryCommand({ ...input(read.query), ExclusiveStartKey: next }))
        : db.send(new ScanCommand({ ...input(read.scan), ExclusiveStartKey: next })),
    );
    next = out.LastEvaluatedKey;
    yield { items: (out.Items ?? []) as T[], count: out.Count ?? 0, next };
  } while (next);
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
type Operation = 'ConditionCheck' | 'Put' | 'Delete' | 'Update';
/** One write of a transaction, without its TableName: the adapter's table is filled in. */
export type TableWrite = { [K in Operation]?: Omit<NonNullable<TransactItem[K]>, 'TableName'> };

/** One TransactWriteItems call on `table`, all writes or none; the cancellation (if any) is the error thrown. */
export function transactWrite(db: DynamoDBDocumentClient, table: string, writes: TableWrite[]): Promise<unknown> {
  const items = writes.map((write) => Object.fromEntries(Object.entries(write).map(([operation, body]) => [operation, { ...body, TableName: table }])) as TransactItem);
  return guard('DynamoDB', () => db.send(new TransactWriteCommand({ TransactItems: items })));
}

/** Why each write of a cancelled transaction failed, in order ('None' for those that did not), or null for any other error. */
export function cancellationCodes(error: unknown): string[] | null {
  if ((error as Error)?.name !== 'TransactionCanceledException') return null;
  return ((error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/** A transaction's writes by name, in the order they are sent; an absent one is left out. */
export type NamedWrites<N extends string> = { readonly [K in N]?: TableWrite };

/** transactWrite with named writes: which one's condition failed is then read by name (failedWrites), not position. */
export function transactNamed<N extends string>(db: DynamoDBDocumentClient, table: string, writes: NamedWrites<N>): Promise<unknown> {
  return transactWrite(db, table, present(writes).map(([, write]) => write));
}

/** The names of a cancelled transaction's writes whose condition failed, or null for any other error. */
export function failedWrites<N extends string>(error: unknown, writes: NamedWrites<N>): Set<N> | null {
  const codes = cancellationCodes(error);
  if (!codes) return null;
  return new Set(present(writes).filter((_, i) => codes[i] === 'ConditionalCheckFailed').map(([name]) => name));
}

const present = <N extends string>(writes: NamedWrites<N>) => (Object.entries(writes) as [N, TableWrite | undefined][]).filter((e): e is [N, TableWrite] => e[1] !== undefined);

/** A condition failed: a single write's, or one of a transaction's. */
export const isConditionFailure = (error: unknown): boolean =>
  (error as Error)?.name === 'ConditionalCheckFailedException' || (cancellationCodes(error) ?? []).includes('ConditionalCheckFailed');

/** The item without its generic keys (`pk`, `sk`) and the `more` attributes named; null for no item. */
export function strip<T>(item: Record<string, unknown> | undefined, ...more: string[]): T | null {
  if (!item) return null;
  const rest: Record<string, unknown> = { ...item };
  for (const name of ['pk', 'sk', ...more]) delete rest[name];
  return rest as T;
}

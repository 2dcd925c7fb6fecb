/**
 * The synthesized template, asserted against the route table, the plan table and the design; cdk-nag clean; and the
 * custom resource's bundle from it run as Lambda runs it.
 */
import { apiTests } from './stack/api';
import { removeOutput, synthesize } from './stack/fixture';
import { functionTests } from './stack/functions';
import { mailIngestTests } from './stack/mail-ingest';
import { receiptRuleSetTests } from './stack/receipt-rule-set';
import { storageTests } from './stack/storage';

// One synth for every concern below (test/infra/stack/): a bundled synth takes minutes on a loaded machine.
beforeAll(synthesize, 300_000);
afterAll(removeOutput);

functionTests();
apiTests();
mailIngestTests();
storageTests();
receiptRuleSetTests();

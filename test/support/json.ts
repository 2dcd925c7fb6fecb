/**
 * What the tests read from outside the type checker: API answers, CloudFormation templates, webhook payloads. Each
 * test asserts the fields it reads (expect), so the value is typed loosely once, here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers and templates read by tests, asserted field by field
export type Json = any;

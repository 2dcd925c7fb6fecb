/**
 * JSON whose shape is AWS's, not ours: a CloudFormation template's properties, an AWS API request body. The template
 * form reads it property by property, checking what it uses where it uses it, so it is typed loosely once, here.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- AWS's JSON (templates, request bodies): checked where each property is read
export type AwsJson = any;
export type Dict = Record<string, AwsJson>;

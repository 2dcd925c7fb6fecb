/**
 * CORS on the deployed API (lambdas/contract/cors.ts states the headers): every gateway response carries them, and
 * OPTIONS on every resource is a mock that answers the preflight without a key, as the local gateway does. The
 * functions add the same headers to their own answers (lambdas/http/api-handler.ts).
 */
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import { corsHeaders, preflightHeaders } from '../lambdas/contract/cors';

const quoted = (headers: Record<string, string>) => Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));

/** For `addGatewayResponse`'s responseHeaders. */
export const gatewayCorsHeaders = (origin: string): Record<string, string> => quoted(corsHeaders(origin));

/** The OPTIONS method of a resource whose routes allow `methods`: 204 with the preflight headers. */
export function preflightMethod(resource: apigw.IResource, methods: readonly string[], origin: string): apigw.Method {
  const headers = preflightHeaders(origin, methods);
  return resource.addMethod(
    'OPTIONS',
    new apigw.MockIntegration({
      requestTemplates: { 'application/json': '{"statusCode": 204}' },
      integrationResponses: [
        { statusCode: '204', responseParameters: Object.fromEntries(Object.entries(quoted(headers)).map(([name, value]) => [`method.response.header.${name}`, value])) },
      ],
    }),
    { methodResponses: [{ statusCode: '204', responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [`method.response.header.${name}`, true])) }] },
  );
}

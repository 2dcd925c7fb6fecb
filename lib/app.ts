/**
 * The CDK app: the TempMail stack, checked by cdk-nag's AWS Solutions rules at synth (the constructs acknowledge
 * their accepted findings themselves, see lib/nag.ts). Used by bin/app.ts and by the infra tests.
 */
import { App, Validations, type AppProps, type Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TempMailStack } from './tempmail-stack';

export const STACK_NAME = 'TempMail';

/** `env` pins the stack to an account and region (tests); without it the stack is environment-agnostic. */
export function createApp(props: AppProps = {}, env?: Environment): { app: App; stack: TempMailStack } {
  const app = new App(props);
  const stack = new TempMailStack(app, STACK_NAME, { description: 'TempMail: disposable e-mail inboxes behind a REST API', env });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

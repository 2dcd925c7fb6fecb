/** The CDK app: the TempMail stack, checked by cdk-nag's AWS Solutions rules at synth. */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { TempMailStack } from '../lib/tempmail-stack';
import { acknowledgeNagFindings } from '../lib/nag';

const app = new App();
const stack = new TempMailStack(app, 'TempMail', { description: 'TempMail: disposable e-mail inboxes behind a REST API' });
acknowledgeNagFindings(stack);
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
app.synth();

/**
 * The stack a customer deploys with `cdk deploy`, configured from context (cdk.json or -c; lib/context.ts reads it).
 * Environment-agnostic. A context that is refused builds nothing: its refusals are error annotations, which
 * `cdk synth` and `cdk deploy` print one line each before exiting 1.
 */
import { Annotations, Stack, Token, type StackProps } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { readContext } from './context';
import { SES_RECEIVING_REGIONS, sesRegionRefusal } from './mail-ingest';
import { TempMailService } from './tempmail-service';

export class TempMailStack extends Stack {
  /** Undefined when the context was refused (the stack then carries only the error annotations). */
  readonly service?: TempMailService;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, props);
    const read = readContext(this.node.getAllContext());
    if (!read.settings) {
      for (const error of read.errors) Annotations.of(this).addError(error);
      return;
    }
    // A region known at synth time where SES does not receive mail is refused the same way (an unresolved one is
    // checked by CloudFormation's rule, lib/mail-ingest.ts).
    const regions = read.settings.sesReceivingRegions ?? SES_RECEIVING_REGIONS;
    if (!Token.isUnresolved(this.region) && !regions.includes(this.region)) {
      Annotations.of(this).addError(sesRegionRefusal(this.region, regions));
      return;
    }
    this.service = new TempMailService(this, 'TempMail', read.settings);
  }
}

/**
 * Alarms and a dashboard: API 5xx, ingest errors, dead letters waiting for replay (at once, and again when half the
 * replay window is gone), and the ingest metrics the handler emits through Powertools (namespace TempMail, dimension
 * service=ingest). Every alarm notifies one SNS topic, in alarm and back to OK; an e-mail address can be subscribed
 * to it at deploy time.
 */
import { Duration } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from './functions';
import { DEAD_LETTER_RETENTION_DAYS } from './mail-ingest';
import { acknowledgeNag } from './nag';

export interface ObservabilityProps {
  restApi: apigw.RestApi;
  ingestFunction: lambda.IFunction;
  deadLetters: sqs.IQueue;
  /** 5xx answers in five minutes that raise the alarm (default 5). */
  api5xxThreshold?: number;
  /** Subscribed to the alarm topic (SNS asks the address to confirm). */
  alarmEmail?: string;
  /** Alarms other constructs own (the webhook dead-letter queue's), notified through the same topic. */
  moreAlarms?: cloudwatch.Alarm[];
}

/** The metric names lambdas/ingest/handler.ts emits. */
export const INGEST_METRICS = ['MessagesReceived', 'MessagesDropped', 'QuotaHits'] as const;

export class Observability extends Construct {
  readonly api5xx: cloudwatch.Alarm;
  readonly ingestErrors: cloudwatch.Alarm;
  readonly deadLetterDepth: cloudwatch.Alarm;
  readonly deadLetterAge: cloudwatch.Alarm;
  readonly alarms: cloudwatch.Alarm[];
  readonly alarmTopic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    const fiveMinutes = Duration.minutes(5);
    // Every alarm fires on one breaching five-minute period and stays quiet without data.
    const alarm = (id: string, metric: cloudwatch.IMetric, threshold: number, alarmDescription: string) =>
      new cloudwatch.Alarm(this, id, {
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription,
      });
    this.api5xx = alarm(
      'Api5xx',
      props.restApi.metricServerError({ period: fiveMinutes, statistic: 'Sum' }),
      props.api5xxThreshold ?? 5,
      'The API answered 5xx: look up the request id from the error message in the function logs',
    );
    this.ingestErrors = alarm(
      'IngestErrors',
      props.ingestFunction.metricErrors({ period: fiveMinutes, statistic: 'Sum' }),
      1,
      'The ingest function failed (Lambda retries it; after the retries it goes to the dead-letter queue)',
    );
    this.deadLetterDepth = alarm(
      'DeadLetterDepth',
      props.deadLetters.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes, statistic: 'Maximum' }),
      1,
      'Mail that failed ingest after retries is waiting in the dead-letter queue: fix the cause, then run tempmail replay',
    );

    this.deadLetterAge = alarm(
      'DeadLetterAge',
      props.deadLetters.metricApproximateAgeOfOldestMessage({ period: fiveMinutes, statistic: 'Maximum' }),
      (DEAD_LETTER_RETENTION_DAYS / 2) * 86_400,
      `A dead letter has waited ${DEAD_LETTER_RETENTION_DAYS / 2} days: run tempmail replay within ${DEAD_LETTER_RETENTION_DAYS / 2} more days, or SQS drops it (the raw mail stays in inbound/ until the bucket lifecycle expires it)`,
    );
    this.alarms = [this.api5xx, this.ingestErrors, this.deadLetterDepth, this.deadLetterAge, ...(props.moreAlarms ?? [])];

    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', { displayName: 'TempMail alarms', enforceSSL: true });
    acknowledgeNag(this.alarmTopic, 'AwsSolutions-SNS2');
    if (props.alarmEmail) this.alarmTopic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    const notify = new actions.SnsAction(this.alarmTopic);
    for (const a of this.alarms) {
      a.addAlarmAction(notify);
      a.addOkAction(notify);
    }

    const ingestMetric = (name: string) =>
      new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: name, dimensionsMap: { service: 'ingest' }, statistic: 'Sum', period: fiveMinutes });
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new cloudwatch.GraphWidget({ title: 'API requests and errors', left: [props.restApi.metricCount({ period: fiveMinutes }), props.restApi.metricClientError({ period: fiveMinutes }), props.restApi.metricServerError({ period: fiveMinutes })] }),
          new cloudwatch.GraphWidget({ title: 'API latency (p99)', left: [props.restApi.metricLatency({ period: fiveMinutes, statistic: 'p99' })] }),
        ],
        [
          new cloudwatch.GraphWidget({ title: 'Mail', left: INGEST_METRICS.map(ingestMetric) }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms }),
        ],
      ],
    });
  }
}
